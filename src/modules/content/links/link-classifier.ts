import { createHash } from 'node:crypto';
import { FILE_REF, markdownLinks, PAGE_REF } from '../markdown/markdown';
import type { LinkStatus, LinkTarget } from '../revision-link.entity';
import { resolvePagePath } from '../tree/slugs';

/** What a revision holds, as far as its links can point at it. */
export interface LinkContext {
  pageIds: ReadonlySet<string>;
  /** Page path → page id. */
  pagePaths: ReadonlyMap<string, string>;
  fileIds: ReadonlySet<string>;
}

export interface ClassifiedLink {
  /** Identifies the target in the revision (`page:ID`, `file:ID`, `url:…`, `path:…`). */
  key: string;
  status: LinkStatus;
  target: LinkTarget;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// Longer keys are hashed: they are part of a primary key and a cursor.
const MAX_KEY_LENGTH = 200;

const key = (kind: string, value: string) => `${kind}:${value.length > MAX_KEY_LENGTH ? `#${createHash('sha256').update(value).digest('hex')}` : value}`;

/**
 * Classifies a link written on the page at `pagePath`:
 * - `/pages/ID`, `/files/ID` (how bodies refer to the space's own content) and relative paths that
 *   name a page of the revision are `in-app`; when the page or file does not exist they are `broken`;
 * - `#anchor` points into the same page: `in-app`;
 * - absolute URLs (any scheme, or `//host`) are external: `ok`, and are not fetched.
 */
export function classifyLink(href: string, pageId: string, pagePath: string, context: LinkContext): ClassifiedLink {
  const raw = href.trim();
  if (raw.startsWith('#')) {
    const anchor = raw.slice(1);
    return { key: key('anchor', `${pageId}#${anchor}`), status: 'in-app', target: { kind: 'anchor', anchor, page: pageId } };
  }
  if (SCHEME.test(raw) || raw.startsWith('//')) return { key: key('url', raw), status: 'ok', target: { kind: 'url', url: raw } };

  const page = PAGE_REF.exec(raw);
  if (page) return pageLink(page[1], context.pageIds.has(page[1]));
  const file = FILE_REF.exec(raw);
  if (file) return { key: key('file', file[1]), status: context.fileIds.has(file[1]) ? 'in-app' : 'broken', target: { kind: 'file', file: file[1] } };

  const path = resolvePagePath(pagePath, raw);
  const target = path === null ? undefined : context.pagePaths.get(path);
  if (target) return pageLink(target, true);
  return { key: key('path', path ?? raw), status: 'broken', target: { kind: 'url', url: raw } };
}

function pageLink(pageId: string, exists: boolean): ClassifiedLink {
  return { key: key('page', pageId), status: exists ? 'in-app' : 'broken', target: { kind: 'page', page: pageId } };
}

export interface RevisionLinkRow extends ClassifiedLink {
  /** Pages the link appears on, in the order the pages were given. */
  pages: string[];
}

/** Every distinct link target of a revision's pages, with the pages that link to it. */
export function collectLinks(pages: { pageId: string; path: string; markdown: string }[], context: LinkContext): RevisionLinkRow[] {
  const rows = new Map<string, RevisionLinkRow>();
  for (const page of pages) {
    for (const link of markdownLinks(page.markdown)) {
      const classified = classifyLink(link.href, page.pageId, page.path, context);
      const row = rows.get(classified.key);
      if (!row) rows.set(classified.key, { ...classified, pages: [page.pageId] });
      else if (row.pages[row.pages.length - 1] !== page.pageId) row.pages.push(page.pageId);
    }
  }
  return [...rows.values()];
}
