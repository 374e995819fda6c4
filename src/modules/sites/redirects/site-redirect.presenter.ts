import type { AppConfig } from '../../../config/app-config';
import type { Site } from '../site.entity';
import type { SiteRedirect, SiteRedirectDestination } from './site-redirect.entity';

/** `SiteRedirect` of the public description. */
export interface SiteRedirectJson {
  object: 'site-redirect';
  id: string;
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: SiteRedirectDestination;
  createdAt: string;
  updatedAt?: string;
}

export function presentSiteRedirect(redirect: SiteRedirect): SiteRedirectJson {
  const json: SiteRedirectJson = {
    object: 'site-redirect',
    id: redirect.id,
    source: redirect.source,
    draft: redirect.draft,
    captureWildcard: redirect.captureWildcard,
    permanent: redirect.permanent,
    destination: redirect.destination,
    createdAt: redirect.createdAt.toISOString(),
  };
  if (redirect.updatedAt) json.updatedAt = redirect.updatedAt.toISOString();
  return json;
}

/**
 * Where a site is read (its custom hostname and basename, else the web application's `/sites/{id}`),
 * without a trailing slash; undefined when it has neither. The same base as the site's `urls.published`.
 */
export function siteBaseUrl(site: Site, config: AppConfig): string | undefined {
  if (site.hostname) return `https://${site.hostname}${site.basename ? `/${site.basename}` : ''}`;
  return config.appUrl ? `${config.appUrl}/sites/${site.id}` : undefined;
}

/** `getSiteRedirectBySource`: the redirect and the URL it leads to (absolute when the site has a base URL, else site-relative). */
export function presentRedirectTarget(
  found: { site: Site; redirect: SiteRedirect; location: string; external: boolean },
  config: AppConfig,
): { redirect: SiteRedirectJson; target: string } {
  const base = found.external ? undefined : siteBaseUrl(found.site, config);
  return { redirect: presentSiteRedirect(found.redirect), target: base ? `${base}${found.location === '/' ? '' : found.location}` : found.location };
}
