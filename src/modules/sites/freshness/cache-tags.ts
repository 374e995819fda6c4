/**
 * The renderer's cache tags (GitBook's `@gitbook/cache-tags`: `site:<id>`, `space:<id>`), in one place
 * for both ends: the routes a site token reads set them in `x-gitbook-cache-tag` (the renderer tags
 * what it caches with them), and the freshness job sends the same ones when what they cover changes.
 */
export const CACHE_TAG_HEADER = 'x-gitbook-cache-tag';

export const siteCacheTag = (siteId: string) => `site:${siteId}`;
export const spaceCacheTag = (spaceId: string) => `space:${spaceId}`;

/**
 * The tags of a renderer-facing route, from what it names: its site (structure, customization,
 * search, redirects) and its space (the space and everything read in its revisions). A route that
 * names neither (a user's profile, an OpenAPI spec, URL resolution) carries none: no change the job
 * sends covers it.
 */
export function routeCacheTags(params: Record<string, string | undefined>): string[] {
  const tags: string[] = [];
  if (params.siteId) tags.push(siteCacheTag(params.siteId));
  if (params.spaceId) tags.push(spaceCacheTag(params.spaceId));
  return tags;
}
