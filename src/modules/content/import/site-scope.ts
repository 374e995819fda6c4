import { MAX_SLUG_LENGTH, slugify, uniqueSlug } from '../tree/slugs';
import { trimEndChar } from '../../../common/text/trim';

/** What an import may crawl: the start URL's origin, at or under its path. */
export interface ImportScope {
  origin: string;
  /** The start page's own path (without a trailing slash; '' for the root). */
  root: string;
  /** Paths under the start page start with this (always ends with `/`). */
  prefix: string;
}

const PAGE_EXTENSION = /\.(html?|php|aspx?|md)$/i;

/**
 * `https://docs.test/guide/` and `https://docs.test/guide` cover `/guide` and what is under
 * `/guide/`; `https://docs.test/guide/index.html` covers the same (a file names its folder).
 */
export function scopeOf(start: URL): ImportScope {
  let path = start.pathname;
  const last = path.split('/').pop() ?? '';
  if (last.includes('.')) path = path.slice(0, path.length - last.length);
  const root = trimEndChar(path, '/');
  return { origin: start.origin, root, prefix: `${root}/` };
}

/** The crawl key of a URL: origin and path, without query, fragment, `index.html` or a trailing slash. */
export function normalizePageUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const path = trimEndChar(url.pathname.replace(/\/index\.html?$/i, '/'), '/');
  return `${url.origin}${path}`;
}

export function inScope(normalized: string, scope: ImportScope): boolean {
  if (!normalized.startsWith(scope.origin)) return false;
  const path = normalized.slice(scope.origin.length);
  return path === scope.root || path.startsWith(scope.prefix) || (scope.root === '' && path === '');
}

/** The path segments of an in-scope URL below the start page, the last one without its extension. */
export function segmentsOf(normalized: string, scope: ImportScope): string[] {
  const path = normalized.slice(scope.origin.length + scope.root.length);
  const segments = path.split('/').filter(Boolean).map(decode);
  if (segments.length > 0) segments[segments.length - 1] = segments[segments.length - 1].replace(PAGE_EXTENSION, '');
  return segments.filter(Boolean);
}

/** The space path an in-scope URL would have: where a link to a page that was not imported points (and stays broken). */
export function spacePathOf(normalized: string, scope: ImportScope): string {
  return `/${segmentsOf(normalized, scope)
    .map((segment) => slugify(segment))
    .join('/')}`;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface CrawledPageRef {
  url: string;
  title: string;
}

export interface PlannedPage {
  url: string;
  pageId: string;
  parentId: string | null;
  slug: string;
  position: number;
  title: string;
}

/**
 * The page tree of an import, from the URL hierarchy: the start page and the pages one level
 * below it go at the top of the space (after `firstPosition`), deeper pages under their nearest
 * imported ancestor. Siblings keep the order the crawl found them; slugs come from the URL
 * segments, unique among siblings (and among `topSlugs`, the space's existing top-level pages).
 */
export function planTree(
  pages: CrawledPageRef[],
  scope: ImportScope,
  topSlugs: Set<string>,
  firstPosition: number,
  idOf: (url: string) => string,
): PlannedPage[] {
  if (pages.length === 0) return [];
  const [start, ...rest] = pages;
  const withSegments = rest
    .map((page, order) => ({ page, order, segments: segmentsOf(page.url, scope) }))
    .filter((entry) => entry.segments.length > 0)
    // Parents before children, discovery order among equals.
    .sort((a, b) => a.segments.length - b.segments.length || a.order - b.order);

  const taken = new Map<string | null, Set<string>>([[null, topSlugs]]);
  const positions = new Map<string | null, number>([[null, firstPosition]]);
  const place = (url: string, title: string, parentId: string | null, slugSource: string): PlannedPage => {
    const siblings = taken.get(parentId) ?? new Set<string>();
    taken.set(parentId, siblings);
    const position = positions.get(parentId) ?? 0;
    positions.set(parentId, position + 1);
    const slug = uniqueSlug(slugify(slugSource).slice(0, MAX_SLUG_LENGTH), siblings);
    return { url, pageId: idOf(url), parentId, slug, position, title: title || slugSource };
  };

  const planned = [place(start.url, start.title, null, start.title || 'home')];
  const bySegments = new Map<string, PlannedPage>();
  for (const { page, segments } of withSegments) {
    const key = segments.join('/');
    if (bySegments.has(key)) continue;
    let parent: PlannedPage | undefined;
    for (let depth = segments.length - 1; depth >= 1 && !parent; depth--) parent = bySegments.get(segments.slice(0, depth).join('/'));
    const last = segments[segments.length - 1];
    const entry = place(page.url, page.title, parent?.pageId ?? null, last);
    bySegments.set(key, entry);
    planned.push(entry);
  }
  return planned;
}
