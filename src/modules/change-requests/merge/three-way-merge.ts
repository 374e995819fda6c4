import { mergeLines } from './line-merge';

/**
 * The three-way merge of two lines of revisions (section 2.6, ARCHITECTURE "Content and change
 * requests"): `base` is where they parted, `ours` the change request's head, `theirs` the space's
 * active revision. Pure: pages in, pages or conflicts out; the services load and write them.
 */

/** What the merge compares of a page; every other field rides along with the side it is taken from. */
export interface MergeablePage {
  pageId: string;
  parentId: string | null;
  position: number;
  title: string;
  slug: string | null;
  /** The body's content address; when present, bodies are compared by it (markdown is then only needed where both sides changed it). */
  documentId?: string | null;
  markdown?: string | null;
}

/** What identifies a page's body: its document id when known, else its markdown. */
const bodyKey = (page: MergeablePage): string | null => (page.documentId !== undefined ? page.documentId : (page.markdown ?? null));

/** Pages whose body both sides changed differently: only their markdown must be loaded for a merge. */
export function bodiesToMerge(base: MergeablePage[], ours: MergeablePage[], theirs: MergeablePage[]): string[] {
  const b = new Map(base.map((page) => [page.pageId, bodyKey(page)]));
  const t = new Map(theirs.map((page) => [page.pageId, bodyKey(page)]));
  return ours
    .filter((page) => {
      if (!b.has(page.pageId) || !t.has(page.pageId)) return false;
      const [bk, ok, tk] = [b.get(page.pageId), bodyKey(page), t.get(page.pageId)];
      return ok !== bk && tk !== bk && ok !== tk;
    })
    .map((page) => page.pageId);
}

/** Settings of a page merged one by one: a change on one side wins, the same change on both is one change. */
const SETTINGS = [
  'kind',
  'title',
  'emoji',
  'icon',
  'slug',
  'description',
  'layout',
  'cover',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'variables',
  'linkTarget',
  'computed',
] as const;

export type ConflictReason =
  | 'edited on both sides'
  | 'deleted on one side, edited on the other'
  | 'moved to different parents on both sides'
  | 'changed differently on both sides'
  | 'parent deleted on the other side'
  | 'slug taken by another page'
  | 'moved under itself';

export interface MergeConflict {
  pageId: string;
  title: string;
  reason: ConflictReason;
}

export interface TreeMergeResult<P extends MergeablePage> {
  pages: P[];
  conflicts: MergeConflict[];
  /** Pages of the result that differ from `theirs` (added, changed or moved), and pages of `theirs` gone from it. */
  changed: Set<string>;
  removed: Set<string>;
}

const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
};

/** The line-level three-way merge of a page body; null when both sides changed the same lines differently. */
export function mergeMarkdown(base: string, ours: string, theirs: string): string | null {
  if (ours === theirs) return ours;
  if (ours === base) return theirs;
  if (theirs === base) return ours;
  const lines = mergeLines(ours.split('\n'), base.split('\n'), theirs.split('\n'));
  return lines === null ? null : lines.join('\n');
}

/** Whether a page differs between two revisions, in anything the merge looks at. */
export function pageChanged(a: MergeablePage, b: MergeablePage): boolean {
  if (a.parentId !== b.parentId || a.position !== b.position || (bodyKey(a) ?? '') !== (bodyKey(b) ?? '')) return true;
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  return SETTINGS.some((field) => !same(left[field], right[field]));
}

/**
 * The whole-tree merge: the reference the partial merge (`mergeChangedPages`, what the service
 * runs) is tested against, and the definition of its semantics. Merges page trees matched by
 * stable page id. Per page: a change on one side wins; both sides changed → settings merged one by one (different values: conflict) and bodies merged line by line;
 * deleted on one side and changed on the other → conflict. Insertions are kept from both sides.
 * Sibling order: a page takes the position of the side that moved it (ours when both did), then
 * siblings are numbered again in that order (main's page first on a tie), so no two share a place.
 */
export function mergePageTrees<P extends MergeablePage>(base: P[], ours: P[], theirs: P[]): TreeMergeResult<P> {
  const baseById = new Map(base.map((page) => [page.pageId, page]));
  const oursById = new Map(ours.map((page) => [page.pageId, page]));
  const theirsById = new Map(theirs.map((page) => [page.pageId, page]));
  const conflicts: MergeConflict[] = [];
  const merged = new Map<string, MergedPage<P>>();
  const conflict = (page: MergeablePage, reason: ConflictReason) => conflicts.push({ pageId: page.pageId, title: page.title, reason });

  const ids = new Set([...theirsById.keys(), ...oursById.keys(), ...baseById.keys()]);
  for (const id of ids) {
    const entry = mergePage(baseById.get(id), oursById.get(id), theirsById.get(id), conflict);
    if (entry) merged.set(id, entry);
  }

  // The merged tree must hold together: parents that exist, no cycles, sibling slugs unique.
  for (const { page } of merged.values()) {
    if (page.parentId !== null && !merged.has(page.parentId)) conflict(page, 'parent deleted on the other side');
  }
  for (const { page } of merged.values()) {
    const seen = new Set<string>();
    for (let at: string | null = page.pageId; at !== null; at = merged.get(at)?.page.parentId ?? null) {
      if (seen.has(at)) {
        conflict(page, 'moved under itself');
        break;
      }
      seen.add(at);
    }
  }
  const bySibling = new Map<string | null, MergedPage<P>[]>();
  for (const entry of merged.values()) {
    const list = bySibling.get(entry.page.parentId) ?? [];
    list.push(entry);
    bySibling.set(entry.page.parentId, list);
  }
  const pages: P[] = [];
  for (const siblings of bySibling.values()) {
    for (const { page } of numberSiblings(siblings, conflict)) pages.push(page);
  }

  const changed = new Set<string>();
  for (const page of pages) {
    const t = theirsById.get(page.pageId);
    if (!t || pageChanged(t, page)) changed.add(page.pageId);
  }
  const kept = new Set(pages.map((page) => page.pageId));
  const removed = new Set(theirs.filter((page) => !kept.has(page.pageId)).map((page) => page.pageId));
  return { pages, conflicts: dedupe(conflicts), changed, removed };
}

/** A page of the merge, and whether its place among siblings is ours (on a tie of positions, main's page goes first). */
export interface MergedPage<P> {
  page: P;
  fromOurs: boolean;
}

/**
 * One page's merge from its three versions (absent: not in that revision): a change on one side
 * wins; both changed → settings, parent and body merged one by one; deleted on one side and changed
 * on the other → conflict. Undefined when the page is not in the result (deleted, or in conflict).
 */
export function mergePage<P extends MergeablePage>(
  b: P | undefined,
  o: P | undefined,
  t: P | undefined,
  conflict: (page: MergeablePage, reason: ConflictReason) => void,
): MergedPage<P> | undefined {
  if (!o && !t) return undefined;
  if (!b) {
    // Added on one side (ids are new ids, so both sides adding one page is a copy of a revision).
    if (o && t && pageChanged(o, t)) conflict(o, 'changed differently on both sides');
    return o ? { page: o, fromOurs: true } : { page: t as P, fromOurs: false };
  }
  if (!o || !t) {
    const kept = (o ?? t) as P;
    if (pageChanged(b, kept)) conflict(kept, 'deleted on one side, edited on the other');
    return undefined;
  }
  if (!pageChanged(b, o)) return { page: t, fromOurs: false };
  if (!pageChanged(b, t)) return { page: o, fromOurs: true };
  const page = mergeBothChanged(b, o, t, (reason) => conflict(o, reason));
  return page ? { page, fromOurs: page.position === o.position && o.position !== b.position } : undefined;
}

/**
 * The children of one parent in the result, in order and numbered again from 0 (by position, main's
 * page first on a tie, then by id). Two of them with one slug: the later one in that order conflicts.
 */
export function numberSiblings<P extends MergeablePage>(
  siblings: MergedPage<P>[],
  conflict: (page: MergeablePage, reason: ConflictReason) => void,
): MergedPage<P>[] {
  const sorted = [...siblings].sort(
    (a, b) => a.page.position - b.page.position || Number(a.fromOurs) - Number(b.fromOurs) || (a.page.pageId < b.page.pageId ? -1 : 1),
  );
  const slugs = new Set<string>();
  for (const { page } of sorted) {
    if (page.slug === null) continue;
    if (slugs.has(page.slug)) conflict(page, 'slug taken by another page');
    slugs.add(page.slug);
  }
  return sorted.map((entry, position) => (entry.page.position === position ? entry : { ...entry, page: { ...entry.page, position } }));
}

/** A page both sides changed: each setting, the parent and the body merged on their own. */
function mergeBothChanged<P extends MergeablePage>(b: P, o: P, t: P, conflict: (reason: ConflictReason) => void): P | null {
  const result: Record<string, unknown> = { ...(t as unknown as Record<string, unknown>) };
  const pick = (field: string): boolean => {
    const [bv, ov, tv] = [b, o, t].map((page) => (page as unknown as Record<string, unknown>)[field]);
    if (same(ov, tv) || same(ov, bv)) result[field] = tv;
    else if (same(tv, bv)) result[field] = ov;
    else return false;
    return true;
  };
  let ok = true;
  for (const field of SETTINGS) {
    if (!pick(field)) {
      conflict('changed differently on both sides');
      ok = false;
      break;
    }
  }
  if (!pick('parentId')) {
    conflict('moved to different parents on both sides');
    ok = false;
  }
  // Order among siblings never conflicts: ours wins when both sides moved the page.
  result.position = o.position !== b.position ? o.position : t.position;
  const [bk, ok_, tk] = [bodyKey(b) ?? '', bodyKey(o) ?? '', bodyKey(t) ?? ''];
  if (ok_ === tk || ok_ === bk) {
    result.documentId = t.documentId;
    result.markdown = t.markdown;
  } else if (tk === bk) {
    result.documentId = o.documentId;
    result.markdown = o.markdown;
  } else {
    const body = mergeMarkdown(b.markdown ?? '', o.markdown ?? '', t.markdown ?? '');
    if (body === null) {
      conflict('edited on both sides');
      ok = false;
    } else {
      result.markdown = body;
      // A new body: its content address is computed when the revision is written.
      if (t.documentId !== undefined) result.documentId = null;
    }
  }
  return ok ? (result as unknown as P) : null;
}

export function dedupe(conflicts: MergeConflict[]): MergeConflict[] {
  const seen = new Set<string>();
  return conflicts.filter((conflict) => {
    const key = `${conflict.pageId}\u0000${conflict.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The 409 message: every conflicting page by title and id, with why. */
export function describeConflicts(conflicts: MergeConflict[]): string {
  const listed = conflicts
    .slice(0, 20)
    .map((conflict) => `"${conflict.title}" (${conflict.pageId}): ${conflict.reason}`)
    .join('; ');
  return `Conflicting pages: ${listed}${conflicts.length > 20 ? `; and ${conflicts.length - 20} more` : ''}`;
}
