import { trimChar, trimEndChar } from '../../../common/text/trim';

/** Longest slug the API accepts (RevisionPageSlug). */
export const MAX_SLUG_LENGTH = 100;

/**
 * A URL-safe slug for a title or a URL segment: lower case ASCII letters, digits and dashes,
 * accents dropped (`Café Menu` → `cafe-menu`). Never empty: a title with nothing usable gives `page`.
 */
export function slugify(text: string): string {
  const dashed = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-');
  const slug = trimEndChar(trimChar(dashed, '-').slice(0, MAX_SLUG_LENGTH), '-');
  return slug || 'page';
}

/** `slug`, or `slug-2`, `slug-3`… : the first not in `taken`, which it then joins. */
export function uniqueSlug(slug: string, taken: Set<string>): string {
  let candidate = slug;
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = `-${n}`;
    candidate = `${trimEndChar(slug.slice(0, MAX_SLUG_LENGTH - suffix.length), '-')}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
}

export interface TreeNode {
  id: string;
  parentId: string | null;
  /** Null for entries without a path of their own (link pages). */
  slug: string | null;
}

/**
 * Every page's path: the slugs from the root down, joined with `/`. A link page has no path;
 * its children (it has none in practice) would hang off its parent's. Throws on a cycle or an
 * unknown parent, which would mean a broken tree.
 */
export function derivePaths(nodes: TreeNode[]): Map<string, string | null> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const paths = new Map<string, string | null>();
  const resolve = (node: TreeNode, seen: Set<string>): string | null => {
    if (paths.has(node.id)) return paths.get(node.id) as string | null;
    if (seen.has(node.id)) throw new Error(`the page tree has a cycle at ${node.id}`);
    seen.add(node.id);
    let parentPath: string | null = null;
    if (node.parentId !== null) {
      const parent = byId.get(node.parentId);
      if (!parent) throw new Error(`page ${node.id} has an unknown parent ${node.parentId}`);
      parentPath = resolve(parent, seen);
    }
    const path = node.slug === null ? null : parentPath ? `${parentPath}/${node.slug}` : node.slug;
    paths.set(node.id, path);
    return path;
  };
  for (const node of nodes) resolve(node, new Set());
  return paths;
}

/** Pages whose slug repeats a sibling's: slugs must be unique among siblings so that paths are unique. */
export function duplicateSiblingSlugs(nodes: TreeNode[]): string[] {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const node of nodes) {
    if (node.slug === null) continue;
    const key = `${node.parentId ?? ''}\u0000${node.slug}`;
    if (seen.has(key)) duplicates.push(node.id);
    seen.add(key);
  }
  return duplicates;
}

/**
 * The relative link from the page at `from` to the page at `to`, resolved the way a browser
 * resolves relative URLs (pages are documents, their parent path is the directory):
 * `guide/install` → `guide/config` is `config`, → `api` is `../api`.
 */
export function relativePath(from: string, to: string): string {
  const fromDir = from.split('/').slice(0, -1);
  const target = to.split('/');
  let common = 0;
  while (common < fromDir.length && common < target.length - 1 && fromDir[common] === target[common]) common++;
  const ups = fromDir.length - common;
  const rest = target.slice(common).join('/');
  return `${'../'.repeat(ups)}${rest}` || './';
}

/** Resolves a relative or root-relative link written on the page at `from` to a page path, or null when it leaves the space. */
export function resolvePagePath(from: string, href: string): string | null {
  const clean = href.split(/[?#]/)[0];
  const segments = clean.startsWith('/') ? [] : from.split('/').slice(0, -1);
  for (const segment of clean.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else segments.push(decodeSegment(segment));
  }
  const path = segments
    .join('/')
    .replace(/\.md$/i, '')
    .replace(/(^|\/)readme$/i, '');
  return path || null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
