/**
 * Where the published profile's `scripts` come from: the integrations installed on the site
 * (`fetch_published_script`). The integrations module provides it; sites cannot import integrations
 * (integrations install on sites), so the dependency runs through this token. Absent: no scripts.
 */
export const SITE_SCRIPTS = Symbol('SITE_SCRIPTS');

export interface SiteScriptsSource {
  scriptsOf(kind: 'site', siteId: string): Promise<{ script: string; contentSecurityPolicy?: string; cookies: boolean }[]>;
}
