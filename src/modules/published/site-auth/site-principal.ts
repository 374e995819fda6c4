/**
 * Who a site API token speaks for: one published site, seen by one visitor audience (its claims).
 * Set on the request by the site-token authenticator; the site-token guard confines the request to
 * what the route declares (`x-quire-site`) and to the content this site publishes to that audience.
 */
export interface SitePrincipal {
  organizationId: string;
  siteId: string;
  siteSectionId?: string;
  siteSpaceId: string;
  spaceId: string;
  /** The spaces the site showed this audience when the token was issued (re-checked on every request). */
  spaces: string[];
  /** The visitor's claims (signed, plus `unsigned`), what conditions are evaluated over. */
  claims: Record<string, unknown>;
  /** The change request whose preview the URL resolved to, if any: the only draft the token may read. */
  changeRequestId?: string;
}
