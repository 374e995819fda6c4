import type { PageKind } from '../revision-page.entity';

/**
 * A page's place in the order the tree is shown (`revision_page_rows.tree_key`, collation "C"):
 * for each level from the top, the page's position as `lpad(position, 10, '0')` then its id, each
 * level closed by U+0001. Ordering by the key is the depth-first walk with siblings by (position,
 * id): U+0001 sorts below every character of an id, so a page comes right after its parent and a
 * shorter id before a longer one it begins, as arrays of the levels compare. The depth is the
 * number of levels less one.
 *
 * Pages that are not shown (groups below the top level, and whatever is under them or under a
 * link) have the empty key: a read of the shown tree is a range scan (`tree_key > ''`).
 */
export const HIDDEN_KEY = '';
export const LEVEL_END = '\u0001';

export interface KeyedNode {
  pageId: string;
  parentId: string | null;
  position: number;
  kind: PageKind;
}

/** PostgreSQL's `lpad(position::text, 10, '0')` (which also cuts text longer than 10), the sort material the tree walk used. */
function level(position: number, pageId: string): string {
  const text = String(position);
  return (text.length >= 10 ? text.slice(0, 10) : text.padStart(10, '0')) + pageId + LEVEL_END;
}

/** The key of a page under a parent of `parent` (null at the top). */
export function treeKey(page: KeyedNode, parent: { key: string; kind: PageKind } | null): string {
  if (parent === null) return level(page.position, page.pageId);
  if (parent.key === HIDDEN_KEY || parent.kind === 'link' || page.kind === 'group') return HIDDEN_KEY;
  return parent.key + level(page.position, page.pageId);
}

/** The depth of a shown page (0 at the top) from its key. */
export function keyDepth(key: string): number {
  let levels = 0;
  for (let i = key.indexOf(LEVEL_END); i !== -1; i = key.indexOf(LEVEL_END, i + 1)) levels++;
  return levels - 1;
}

/**
 * The keys of `nodes`, whose parents are among them or known (`known`: key and kind by page id).
 * The tree has been checked (no cycle, no unknown parent) by the caller.
 */
export function deriveTreeKeys(nodes: KeyedNode[], known: Map<string, { key: string; kind: PageKind }> = new Map()): Map<string, string> {
  const byId = new Map<string, KeyedNode>();
  for (const node of nodes) byId.set(node.pageId, node);
  const keys = new Map<string, string>();
  const resolve = (node: KeyedNode): string => {
    let key = keys.get(node.pageId);
    if (key !== undefined) return key;
    if (node.parentId === null) key = treeKey(node, null);
    else {
      const inside = byId.get(node.parentId);
      const parent = inside ? { key: resolve(inside), kind: inside.kind } : known.get(node.parentId);
      if (parent === undefined) throw new Error(`page ${node.pageId} has an unknown parent ${node.parentId}`);
      key = treeKey(node, parent);
    }
    keys.set(node.pageId, key);
    return key;
  };
  for (const node of nodes) resolve(node);
  return keys;
}
