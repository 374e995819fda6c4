/**
 * Where a site's visitors log in and out (`Site.urls.login`, `urls.logout` of the published
 * profile; the renderer's `~gitbook/auth/login` and `~gitbook/auth/logout` redirect there). The
 * published module provides it (it owns the publishing auth); sites cannot import it (it sits above
 * sites), so the dependency runs through this token. Absent: no such URLs.
 */
export const SITE_AUTH_URLS = Symbol('SITE_AUTH_URLS');

export interface SiteAuthUrls {
  login?: string;
  logout?: string;
}

export interface SiteAuthUrlsSource {
  authUrlsOf(siteId: string, organizationId: string): Promise<SiteAuthUrls>;
}
