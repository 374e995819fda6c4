import type { SitePublishingAuth } from './site-publishing-auth.entity';

/** The public `SitePublishingAuth` (admins only: it carries the private key). */
export interface SitePublishingAuthJson {
  object: 'publishing-auth';
  backend: 'custom' | 'integration';
  privateKey: string;
  fallbackURL?: string;
  logoutURL?: string;
}

export function presentPublishingAuth(auth: SitePublishingAuth): SitePublishingAuthJson {
  const json: SitePublishingAuthJson = { object: 'publishing-auth', backend: auth.backend, privateKey: auth.privateKey };
  if (auth.fallbackUrl !== null) json.fallbackURL = auth.fallbackUrl;
  if (auth.logoutUrl !== null) json.logoutURL = auth.logoutUrl;
  return json;
}
