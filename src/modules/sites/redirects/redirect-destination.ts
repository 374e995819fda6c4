import { trimChar } from '../../../common/text/trim';
import type { SiteRedirectDestination } from './site-redirect.entity';
import { siteRedirectError } from '../site-readers.errors';
import type { SiteSpacePlace } from './site-redirects.repository';

/** A destination as a body may give it: a stored one, or a page named by its space and path (resolved when written). */
export type InputDestination = SiteRedirectDestination | { kind: 'path'; spaceId: string; path: string };

const ID = /^[\w-]{1,64}$/;

function field(value: Record<string, unknown>, name: string, where: string): string {
  const text = value[name];
  if (typeof text !== 'string' || text.length === 0) throw siteRedirectError('site_redirect.invalid', `${where}.${name}: must be a non-empty string`);
  if (name !== 'url' && name !== 'path' && !ID.test(text)) throw siteRedirectError('site_redirect.invalid', `${where}.${name}: must be an id`);
  return text;
}

function onlyKeys(value: Record<string, unknown>, keys: string[], where: string): void {
  const extra = Object.keys(value).find((key) => !keys.includes(key));
  if (extra) throw siteRedirectError('site_redirect.invalid', `${where}.${extra}: should not exist`);
}

/** Checks a body's destination (`SiteRedirectInputDestination`, or `SiteRedirectDestination` without `path` when `allowPath` is false). */
export function parseDestination(value: unknown, allowPath: boolean, where = 'destination'): InputDestination {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw siteRedirectError('site_redirect.invalid', `${where}: must be an object`);
  const body = value as Record<string, unknown>;
  switch (body.kind) {
    case 'site-section':
      onlyKeys(body, ['kind', 'siteSectionId'], where);
      return { kind: 'site-section', siteSectionId: field(body, 'siteSectionId', where) };
    case 'site-space':
      onlyKeys(body, ['kind', 'siteSpaceId'], where);
      return { kind: 'site-space', siteSpaceId: field(body, 'siteSpaceId', where) };
    case 'site-page':
      onlyKeys(body, ['kind', 'siteSpaceId', 'pageId'], where);
      return { kind: 'site-page', siteSpaceId: field(body, 'siteSpaceId', where), pageId: field(body, 'pageId', where) };
    case 'external': {
      onlyKeys(body, ['kind', 'url'], where);
      const url = field(body, 'url', where);
      let parsed: URL | null;
      try {
        parsed = new URL(url);
      } catch {
        parsed = null;
      }
      if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || url.length > 2048) {
        throw siteRedirectError('site_redirect.invalid', `${where}.url: must be an http(s) URL of at most 2048 characters`);
      }
      return { kind: 'external', url };
    }
    case 'path':
      if (!allowPath) break;
      onlyKeys(body, ['kind', 'spaceId', 'path'], where);
      return { kind: 'path', spaceId: field(body, 'spaceId', where), path: trimChar(field(body, 'path', where), '/') };
  }
  const kinds = allowPath ? 'site-section, site-space, site-page, path or external' : 'site-section, site-space, site-page or external';
  throw siteRedirectError('site_redirect.invalid', `${where}.kind: must be one of ${kinds}`);
}

/** The source's parts: what a wildcard source matches the start of, and whether it is one. */
export function sourceParts(source: string): { prefix: string; wildcard: boolean } {
  return source.endsWith('*') ? { prefix: source.slice(0, -1), wildcard: true } : { prefix: source, wildcard: false };
}

/**
 * Where a site space is served, relative to the site's base: its section's path (none for the default
 * section, served at the root), then its own unless it is its level's default.
 */
export function siteSpacePath(place: Pick<SiteSpacePlace, 'path' | 'isDefault' | 'sectionPath' | 'sectionDefault'>): string {
  const segments = [place.sectionDefault ? null : place.sectionPath, place.isDefault ? null : place.path].filter((segment): segment is string => !!segment);
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

/** Joins a site-relative path and a page path (or a captured suffix) with one slash. */
export function joinPath(base: string, rest: string): string {
  if (!rest) return base;
  const trimmed = rest.replace(/^\/+/, '');
  if (!trimmed) return base;
  return `${base.endsWith('/') ? base : `${base}/`}${trimmed}`;
}

/** Appends the captured part of a wildcard match to a location (a URL keeps its query and fragment after the path). */
export function appendSuffix(location: string, suffix: string, external: boolean): string {
  if (!suffix) return location;
  if (!external) return joinPath(location, suffix);
  const url = new URL(location);
  url.pathname = joinPath(url.pathname, suffix);
  return url.toString();
}
