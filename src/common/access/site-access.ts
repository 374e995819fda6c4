import { declareOnRoutes } from './route-declaration';

/**
 * What a site API token (the JWT that `POST /v1/urls/published` hands to a reader's renderer) may
 * call, declared on each route and written into the OpenAPI document as the `x-quire-site`
 * extension. A site token is a read-only principal confined to one site's published content for
 * one visitor audience; the guard that confines it reads this declaration, answers 403 to a site
 * token on a route that declares `none` or nothing (deny by default), and a generated test fails on
 * any route that declares nothing.
 *
 * - `none`: never callable with a site token.
 * - `site`: a route of the token's own site (`{organizationId}` and `{siteId}` are the token's).
 * - `content`: a read of content the token's site publishes to the token's audience (`{spaceId}`, its
 *   revisions, pages and files; a change request only when the token was issued for its preview).
 * - `unscoped`: a read that names no organization, site or space (e.g. a user's public profile by id).
 */
export type SiteAccessDeclaration = { site: 'none' } | { site: 'site' } | { site: 'content' } | { site: 'unscoped' };

export const SITE_ACCESS_EXTENSION = 'x-quire-site';
export const SITE_ACCESS = 'quire:site-access';

const declare = (declaration: SiteAccessDeclaration) => declareOnRoutes(SITE_ACCESS, SITE_ACCESS_EXTENSION, declaration);

/** Never callable with a site token (on a route, or on a controller for its routes that declare nothing). */
export const NotForSiteTokens = (): MethodDecorator & ClassDecorator => declare({ site: 'none' });

/** Callable with a site token of this route's own site (`{organizationId}`/`{siteId}`). */
export const SiteTokenOwnSite = (): MethodDecorator & ClassDecorator => declare({ site: 'site' });

/** Callable with a site token, for content its site publishes to the token's audience. */
export const SiteTokenContent = (): MethodDecorator & ClassDecorator => declare({ site: 'content' });

/** Callable with any site token: the route names no organization, site or space. */
export const SiteTokenUnscoped = (): MethodDecorator & ClassDecorator => declare({ site: 'unscoped' });
