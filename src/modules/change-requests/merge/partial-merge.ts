import { ConflictReason, dedupe, MergeablePage, MergeConflict, MergedPage, mergePage, numberSiblings, pageChanged } from './three-way-merge';

/**
 * The three-way merge read from what differs: the same result and conflicts as `mergePageTrees` on
 * the whole trees, computed from the pages whose versions differ and the context the tree checks
 * need, asked of `theirs` by index (siblings by parent, ancestors by id), so its cost follows the
 * change, not the space.
 */

/** A page's three versions (absent: not in that revision). */
export interface PageVersions<P> {
  pageId: string;
  base?: P;
  ours?: P;
  theirs?: P;
}

/** What the partial merge reads of `theirs` (the space's active revision) beyond the differing pages. */
export interface TheirsLookup<P> {
  /** Its pages under the given parents (null: top level). */
  children(parentIds: (string | null)[]): Promise<P[]>;
  /** Its pages with the given ids, and all their ancestors. */
  ancestors(ids: string[]): Promise<P[]>;
}

export interface PartialMergeResult<P> {
  /** Pages of the result that differ from `theirs` (added, changed, moved or numbered again). */
  changed: P[];
  /** Pages of `theirs` that are not in the result. */
  removed: string[];
  conflicts: MergeConflict[];
}

/**
 * Merges `differing`, which must hold every page whose versions differ in anything the merge
 * compares (more is harmless): a page left out is the same in base, ours and theirs, or in none.
 * Sibling groups the change touches are read whole and numbered again, as the whole-tree merge does;
 * untouched groups keep their positions (the whole-tree merge would also close gaps in those).
 */
export async function mergeChangedPages<P extends MergeablePage>(differing: PageVersions<P>[], theirs: TheirsLookup<P>): Promise<PartialMergeResult<P>> {
  const conflicts: MergeConflict[] = [];
  const conflict = (page: MergeablePage, reason: ConflictReason) => conflicts.push({ pageId: page.pageId, title: page.title, reason });
  const versions = new Map(differing.map((entry) => [entry.pageId, entry]));
  const merged = new Map<string, MergedPage<P>>();
  for (const { pageId, base, ours, theirs: t } of differing) {
    const entry = mergePage(base, ours, t, conflict);
    if (entry) merged.set(pageId, entry);
  }
  const gone = differing.filter((entry) => !merged.has(entry.pageId)).map((entry) => entry.pageId);

  // Rows of theirs for pages outside `differing` (the same in every version, so in the result as they are).
  const known = new Map<string, P | null>();
  const unchanged = (page: P) => !versions.has(page.pageId);
  const remember = (rows: P[]) => rows.filter(unchanged).forEach((row) => known.set(row.pageId, row));
  const fetchAncestors = async (ids: string[]) => {
    const wanted = [...new Set(ids)].filter((id) => !versions.has(id) && !known.has(id));
    if (wanted.length === 0) return;
    remember(await theirs.ancestors(wanted));
    for (const id of wanted) if (!known.has(id)) known.set(id, null);
  };
  /** The page's parent in the result; undefined when not fetched yet. */
  const parentOf = (id: string): string | null | undefined => {
    if (versions.has(id)) return merged.get(id)?.page.parentId ?? null;
    const row = known.get(id);
    return row === undefined ? undefined : (row?.parentId ?? null);
  };

  // Sibling groups the change touches (every parent a differing page has or had) and the children
  // of pages not in the result: read whole from theirs.
  const groups = new Set<string | null>(gone);
  for (const entry of differing) {
    for (const page of [entry.base, entry.ours, entry.theirs]) if (page) groups.add(page.parentId);
  }
  for (const { page } of merged.values()) groups.add(page.parentId);
  const childrenByParent = new Map<string | null, P[]>();
  const read = new Set(groups);
  const addChildren = (rows: P[]) => {
    remember(rows);
    for (const row of rows.filter(unchanged)) childrenByParent.set(row.parentId, [...(childrenByParent.get(row.parentId) ?? []), row]);
  };
  addChildren(await theirs.children([...groups]));

  // Parents that exist.
  await fetchAncestors([...merged.values()].map(({ page }) => page.parentId).filter((id): id is string => id !== null));
  for (const { page } of merged.values()) {
    if (page.parentId !== null && (versions.has(page.parentId) ? !merged.has(page.parentId) : known.get(page.parentId) === null))
      conflict(page, 'parent deleted on the other side');
  }
  for (const id of gone) for (const child of childrenByParent.get(id) ?? []) conflict(child, 'parent deleted on the other side');

  // No cycles: any cycle passes through a page whose parent differs from theirs; every page on or
  // below one conflicts, as in the whole-tree merge.
  const moved = [...merged.values()].filter(({ page }) => {
    const t = versions.get(page.pageId)?.theirs;
    return !t || t.parentId !== page.parentId;
  });
  const onCycle = new Set<string>();
  for (;;) {
    const missing: string[] = [];
    for (const { page } of moved) {
      const path: string[] = [];
      for (let at: string | null | undefined = page.pageId; at !== null; at = parentOf(at)) {
        if (at === undefined) {
          missing.push(path[path.length - 1]);
          break;
        }
        const seen = path.indexOf(at);
        if (seen >= 0) {
          path.slice(seen).forEach((id) => onCycle.add(id));
          break;
        }
        path.push(at);
      }
    }
    if (missing.length === 0) break;
    // Pages reached on the way up that were not read yet: read them with their ancestors, walk again.
    await fetchAncestors(missing);
  }
  if (onCycle.size > 0) {
    const resultChildren = new Map<string | null, P[]>();
    for (const { page } of merged.values()) resultChildren.set(page.parentId, [...(resultChildren.get(page.parentId) ?? []), page]);
    const reported = new Set<string>();
    let level = [...onCycle];
    while (level.length > 0) {
      const unread = level.filter((id) => !read.has(id));
      if (unread.length) {
        addChildren(await theirs.children(unread));
        unread.forEach((id) => read.add(id));
      }
      const next: string[] = [];
      for (const id of level) {
        if (reported.has(id)) continue;
        reported.add(id);
        const page = merged.get(id)?.page ?? known.get(id);
        if (page) conflict(page, 'moved under itself');
        for (const child of [...(resultChildren.get(id) ?? []), ...(childrenByParent.get(id) ?? [])]) next.push(child.pageId);
      }
      level = next;
    }
  }

  // Touched groups: sibling slugs unique, numbered again.
  const resultGroups = new Map<string | null, MergedPage<P>[]>();
  for (const parent of groups)
    resultGroups.set(
      parent,
      (childrenByParent.get(parent) ?? []).map((page) => ({ page, fromOurs: false })),
    );
  for (const entry of merged.values()) resultGroups.get(entry.page.parentId)?.push(entry);
  const changed: P[] = [];
  for (const siblings of resultGroups.values()) {
    for (const { page } of numberSiblings(siblings, conflict)) {
      const t = versions.has(page.pageId) ? versions.get(page.pageId)?.theirs : known.get(page.pageId);
      if (!t || pageChanged(t, page)) changed.push(page);
    }
  }
  const removed = differing.filter((entry) => entry.theirs && !merged.has(entry.pageId)).map((entry) => entry.pageId);
  return { changed, removed, conflicts: dedupe(conflicts) };
}
