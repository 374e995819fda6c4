import { posix } from 'node:path';
import { trimChar } from '../../../common/text/trim';
import type { DocNode, JsonDocument } from '../document';
import type { DocFragment } from '../document/document.types';
import type { PageCover, PageKind, PageLayout } from '../revision-page.entity';

/**
 * GitBook's Git Sync layout, shared by export and import: a space as a set of files (path → bytes)
 * with `SUMMARY.md` for the tree, one Markdown file per page with YAML front matter, files under
 * `.gitbook/assets/`, reusable contents under `.gitbook/includes/` and the space's variables in
 * `.gitbook/vars.yaml`. See docs/modules/git-sync.md.
 */

export const SUMMARY = 'SUMMARY.md';
export const README = 'README.md';
export const ASSETS_DIR = '.gitbook/assets';
export const INCLUDES_DIR = '.gitbook/includes';
export const VARS_FILE = '.gitbook/vars.yaml';
export const CONFIG_FILE = '.gitbook.yaml';

/** A page of the space as the layout needs it (the tree row and its body). */
export interface LayoutPage {
  pageId: string;
  parentId: string | null;
  position: number;
  kind: PageKind;
  title: string;
  emoji: string | null;
  icon: string | null;
  slug: string | null;
  description: string | null;
  layout: PageLayout | null;
  cover: PageCover | null;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  variables: Record<string, string | number | boolean>;
  linkTarget: Record<string, string> | null;
  markdown: string;
}

export interface LayoutFile {
  fileId: string;
  name: string;
  contentType: string;
  data: Buffer;
}

export interface LayoutReusableContent {
  reusableContentId: string;
  title: string;
  markdown: string;
}

/** A space's content, what is exported and what an import gives back (ids included). */
export interface LayoutSpace {
  pages: LayoutPage[];
  files: LayoutFile[];
  reusableContents: LayoutReusableContent[];
  variables: Record<string, string | number | boolean>;
}

/**
 * Where each page, file and reusable content lives in the layout. Computed from a space alone, so an
 * import computes it from the space it replaces to keep the ids of whatever kept its path.
 */
export interface LayoutPaths {
  /** Page id → its Markdown file (document pages only). */
  pageFiles: Map<string, string>;
  /** File id → its path under `.gitbook/assets/`. */
  assetFiles: Map<string, string>;
  /** Reusable content id → its path under `.gitbook/includes/`. */
  includeFiles: Map<string, string>;
}

/** Children of each parent (null for the top level), in position order. */
export function childrenOf<T extends { parentId: string | null; position: number; pageId: string }>(pages: T[]): Map<string | null, T[]> {
  const children = new Map<string | null, T[]>();
  for (const page of pages) {
    const list = children.get(page.parentId);
    if (list) list.push(page);
    else children.set(page.parentId, [page]);
  }
  for (const list of children.values()) list.sort((a, b) => a.position - b.position || (a.pageId < b.pageId ? -1 : 1));
  return children;
}

/**
 * A page with children is `path/README.md`, a page without is `path.md`, and the space's first
 * top-level document page is the root `README.md` (its children still go under its path). Paths
 * are the pages' own (slugs from the root, groups included), so they are unique.
 */
export function layoutPaths(space: Pick<LayoutSpace, 'pages' | 'files' | 'reusableContents'>): LayoutPaths {
  const children = childrenOf(space.pages);
  const pageFiles = new Map<string, string>();
  const first = (children.get(null) ?? []).find((page) => page.kind === 'document');
  const walk = (parentPath: string, list: LayoutPage[]) => {
    for (const page of list) {
      const path = page.slug === null ? parentPath : parentPath ? `${parentPath}/${page.slug}` : page.slug;
      const kids = children.get(page.pageId) ?? [];
      if (page.kind === 'document') {
        pageFiles.set(page.pageId, page === first ? README : kids.length > 0 ? `${path}/${README}` : `${path}.md`);
      }
      walk(path, kids);
    }
  };
  walk('', children.get(null) ?? []);

  const assetFiles = new Map<string, string>();
  const takenAssets = new Set<string>();
  for (const file of [...space.files].sort((a, b) => (a.fileId < b.fileId ? -1 : 1))) {
    assetFiles.set(file.fileId, `${ASSETS_DIR}/${uniqueName(assetName(file.name), takenAssets)}`);
  }
  const includeFiles = new Map<string, string>();
  const takenIncludes = new Set<string>();
  for (const reusable of [...space.reusableContents].sort((a, b) => (a.reusableContentId < b.reusableContentId ? -1 : 1))) {
    includeFiles.set(reusable.reusableContentId, `${INCLUDES_DIR}/${uniqueName(`${includeName(reusable.title)}.md`, takenIncludes)}`);
  }
  return { pageFiles, assetFiles, includeFiles };
}

/** A file's name as an asset: what a path and a Markdown link destination can both carry. */
export function assetName(name: string): string {
  const cleaned = name.replace(/[^\p{L}\p{N} ._()+-]/gu, '-').replace(/^\.+/, '');
  return cleaned.trim() || 'file';
}

function includeName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return trimChar(slug.slice(0, 80), '-') || 'reusable-content';
}

/** `name`, else `name (1)`, `name (2)`… before the extension: the first not taken, case-insensitively (checkouts on macOS). */
function uniqueName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 1; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The path from the file at `from` to `to`, both relative to the repository's root. */
export function relativePath(from: string, to: string): string {
  return posix.relative(posix.dirname(from), to) || posix.basename(to);
}

/**
 * The repository path a relative link of the file at `from` points at, or null for what is not a
 * relative path (a URL, `/absolute`, `#anchor`, a path leaving the repository). Percent-escapes
 * are decoded (markdown-it encodes spaces and non-ASCII characters of destinations).
 */
export function resolveRelative(from: string, href: string): { path: string; anchor?: string } | null {
  if (!href || href.startsWith('#') || href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return null;
  const hash = href.indexOf('#');
  let target = hash >= 0 ? href.slice(0, hash) : href;
  const anchor = hash >= 0 ? href.slice(hash + 1) : undefined;
  try {
    target = decodeURI(target);
  } catch {
    // A destination with a stray `%` is taken as written.
  }
  const path = posix.normalize(posix.join(posix.dirname(from), target));
  if (path.startsWith('../') || path === '..' || posix.isAbsolute(path)) return null;
  return { path, anchor: anchor || undefined };
}

/**
 * Calls `visit` with every `data.ref` of a document (blocks, inlines, image captions and table
 * cells included), so export and import rewrite them in one place; `visit` may replace it.
 */
export function eachRef(document: Pick<JsonDocument, 'nodes'>, visit: (ref: Record<string, string>, node: DocNode) => Record<string, string> | void): void {
  const stack: (DocNode | DocFragment)[] = [...document.nodes];
  while (stack.length > 0) {
    const node = stack.pop() as DocNode | DocFragment;
    if (node.object !== 'fragment') {
      const data = node.data;
      if (data?.ref && typeof data.ref === 'object') {
        const replaced = visit(data.ref, node);
        if (replaced) data.ref = replaced;
      }
      for (const child of node.nodes ?? []) if (child.object !== 'text') stack.push(child);
      for (const fragment of node.fragments ?? []) stack.push(fragment);
    } else {
      for (const child of node.nodes) stack.push(child);
    }
  }
}
