import type { PublishingAuthView } from './publishing-auth.read-model';

/** The public `SitePublishingAuth` (admins only: it carries the private key). */
export interface SitePublishingAuthJson {
  object: 'publishing-auth';
  backend: 'custom' | 'integration';
  privateKey: string;
  fallbackURL?: string;
  logoutURL?: string;
  /** The visitor-auth integration installed on the site (the one an `integration` backend uses). */
  integration?: string;
}

export function presentPublishingAuth({ auth, integration }: PublishingAuthView): SitePublishingAuthJson {
  const json: SitePublishingAuthJson = { object: 'publishing-auth', backend: auth.backend, privateKey: auth.privateKey };
  if (auth.fallbackUrl !== null) json.fallbackURL = auth.fallbackUrl;
  if (auth.logoutUrl !== null) json.logoutURL = auth.logoutUrl;
  if (integration !== null) json.integration = integration;
  return json;
}
