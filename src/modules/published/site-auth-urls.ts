import { Inject, Injectable, Optional } from '@nestjs/common';
import type { SiteAuthUrls, SiteAuthUrlsSource } from '../sites/site-auth-urls.port';
import { PublishedRepository } from './published.repository';
import { SITE_VISITOR_AUTH, withParam, type SiteVisitorAuthSource } from '../sites/visitor-auth.port';

/**
 * `SITE_AUTH_URLS`: a site's `urls.login` and `urls.logout`. Custom backend: the `fallbackURL` and
 * `logoutURL` an admin set (the renderer adds `?location=`). Integration backend: Quire's route to
 * the site's visitor-auth integration, and the same with `action=logout` (the integration's
 * `fetch_visitor_authentication` then answers where to go).
 */
@Injectable()
export class SiteAuthUrlsProvider implements SiteAuthUrlsSource {
  constructor(
    private readonly repository: PublishedRepository,
    @Optional() @Inject(SITE_VISITOR_AUTH) private readonly visitorAuth?: SiteVisitorAuthSource,
  ) {}

  async authUrlsOf(siteId: string, organizationId: string): Promise<SiteAuthUrls> {
    const auth = await this.repository.publishingAuthUrls(siteId);
    if (!auth) return {};
    if (auth.backend === 'custom') {
      return { ...(auth.fallbackUrl ? { login: auth.fallbackUrl } : {}), ...(auth.logoutUrl ? { logout: auth.logoutUrl } : {}) };
    }
    const backend = await this.visitorAuth?.backendOf(siteId, organizationId);
    return backend ? { login: backend.loginUrl, logout: withParam(backend.loginUrl, 'action', 'logout') } : {};
  }
}
