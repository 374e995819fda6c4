import { trimEndChar } from '../../common/text/trim';

/**
 * Where a published URL points before any site is looked up (pure). A site is reached at its own
 * `hostname`, at `<organization hostname>.<SITES_BASE_DOMAIN>[/<site basename>]`, or at
 * `<PUBLISHED_BASE_URL>/<organization hostname>[/<site basename>]`.
 */
export type UrlLocator =
  /** A site's custom hostname: the whole path is the site's. */
  | { kind: 'hostname'; hostname: string; prefix: string; segments: string[] }
  /** An organization's address: `segments[0]` may be a site's basename (else the organization's default site). */
  | { kind: 'organization'; organizationHostname: string; prefix: string; segments: string[] };

/** The path's segments, decoded; null when one does not decode or tries to climb (`..`). */
export function segmentsOf(pathname: string): string[] | null {
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || segment.includes('/')) return null;
    segments.push(segment);
  }
  return segments;
}

export function locate(url: URL, published: { sitesBaseDomain?: string; baseUrl?: string }): UrlLocator | null {
  const segments = segmentsOf(url.pathname);
  if (segments === null) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (published.baseUrl) {
    const base = new URL(published.baseUrl);
    const basePath = trimEndChar(base.pathname, '/');
    const baseSegments = segmentsOf(basePath) ?? [];
    const sameOrigin = base.protocol === url.protocol && base.host.toLowerCase() === url.host.toLowerCase();
    if (sameOrigin && baseSegments.every((segment, i) => segments[i] === segment) && segments.length > baseSegments.length) {
      const rest = segments.slice(baseSegments.length);
      return {
        kind: 'organization',
        organizationHostname: rest[0].toLowerCase(),
        prefix: `${basePath}/${encodeURIComponent(rest[0])}`,
        segments: rest.slice(1),
      };
    }
  }
  const domain = published.sitesBaseDomain;
  if (domain && host.endsWith(`.${domain}`)) {
    const label = host.slice(0, -(domain.length + 1));
    if (label.length > 0 && !label.includes('.')) return { kind: 'organization', organizationHostname: label, prefix: '', segments };
  }
  return { kind: 'hostname', hostname: host, prefix: '', segments };
}

/** Files GitBook's renderer serves itself below a site level (its `encodePathInSiteContent`). */
const RENDERER_FILES = new Set(['sitemap.xml', 'sitemap-pages.xml', 'robots.txt', 'llms.txt', 'llms-full.txt', 'sitemap.md', '.well-known/sitemap.md']);

/**
 * What a path below a site level is to GitBook's renderer when it names no page: one of its own routes
 * (`~gitbook/…`, the sitemap, `robots.txt`, `llms.txt`, `llms-full.txt/<n>`), a page's markdown
 * (`<page path>.md`) or feed (`[<page path>/]rss.xml`) whose page must exist, or nothing (null). Pure.
 */
export function rendererRoute(segments: string[]): { own: true } | { pagePath: string } | null {
  if (segments.length === 0) return null;
  const path = segments.join('/');
  if (segments[0] === '~gitbook' || RENDERER_FILES.has(path) || /^llms-full\.txt\/\d+$/.test(path)) return { own: true };
  if (segments[segments.length - 1] === 'rss.xml') return segments.length === 1 ? { own: true } : { pagePath: segments.slice(0, -1).join('/') };
  if (path.endsWith('.md') && path.length > 3) return { pagePath: path.slice(0, -3) };
  return null;
}
