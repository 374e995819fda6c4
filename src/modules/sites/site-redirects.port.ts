/**
 * Where URL resolution asks for a site's redirects before it answers 404 (and for the old paths of
 * moved pages). Provided by the sites module's redirects; URL resolution reads it through this
 * token, so neither side imports the other's internals.
 */
export const SITE_REDIRECTS = Symbol('SITE_REDIRECTS');

/** A live redirect that matched a path of a site. */
export interface SiteRedirectMatch {
  /** The destination: an absolute URL (external) or a path inside the site, starting with `/` (relative to the site's base). */
  location: string;
  /** Whether it points outside the site. */
  external: boolean;
  /** Permanent redirects are served as 308 to public traffic and 307 otherwise. */
  permanent: boolean;
}

export interface SiteRedirectsSource {
  /** The live (non-draft) redirect for `pathname` (site-relative, starting with `/`), the most specific first; null when none. */
  match(siteId: string, pathname: string): Promise<SiteRedirectMatch | null>;
}
