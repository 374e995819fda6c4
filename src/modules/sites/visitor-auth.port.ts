/**
 * The integration backend of visitor authentication (`backend: "integration"`): which visitor-auth
 * integration installed on a site signs its visitors' JWTs, with which secret, and where a visitor
 * goes to log in. Declared here, below both: published asks it, the integrations module provides it,
 * and neither imports the other for it. Absent: an integration-backend site opens to no one.
 */
export const SITE_VISITOR_AUTH = Symbol('SITE_VISITOR_AUTH');

export interface VisitorAuthBackend {
  /** The integration's name (`SitePublishingAuth.integration`). */
  integration: string;
  installationId: string;
  /** The site installation's own signing secret (`environment.signingSecrets.siteInstallation`): it signs visitor JWTs. */
  signingSecret: string;
  /** Quire's route that hands the visitor to the integration (`fetch_visitor_authentication`); takes `location` and `action`. */
  loginUrl: string;
}

export interface SiteVisitorAuthSource {
  /** The visitor-auth integration installed (active) on the site, the oldest installation first; null when none. */
  backendOf(siteId: string, organizationId: string): Promise<VisitorAuthBackend | null>;
}

/** `url` with `name=value` set in its query (its own parameters kept). */
export function withParam(url: string, name: string, value: string): string {
  const target = new URL(url);
  target.searchParams.set(name, value);
  return target.toString();
}
