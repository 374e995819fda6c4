import { mergeChangedPages, PageVersions, TheirsLookup } from '../../src/modules/change-requests/merge/partial-merge';
import { MergeablePage, mergePageTrees } from '../../src/modules/change-requests/merge/three-way-merge';

/**
 * The partial merge (differing pages + context read by index) against the whole-tree merge, on
 * random trees: base, then ours and theirs made by random edits, moves, deletes, inserts and slug
 * changes the way authoring makes them (siblings numbered 0..n-1 after each change).
 */

type Tree = Map<string, MergeablePage>;

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: T[]): T => items[Math.floor(next() * items.length)] };
}
type Random = ReturnType<typeof random>;

const children = (tree: Tree, parentId: string | null) =>
  [...tree.values()].filter((page) => page.parentId === parentId).sort((a, b) => a.position - b.position);
const renumber = (tree: Tree, parentId: string | null) => children(tree, parentId).forEach((page, position) => tree.set(page.pageId, { ...page, position }));
const descendants = (tree: Tree, id: string): Set<string> => {
  const found = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const page of tree.values())
      if (page.parentId !== null && found.has(page.parentId) && !found.has(page.pageId)) {
        found.add(page.pageId);
        grew = true;
      }
  }
  return found;
};
const SLUGS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const freeSlug = (tree: Tree, rnd: Random, parentId: string | null, except?: string) => {
  const taken = new Set(
    children(tree, parentId)
      .filter((page) => page.pageId !== except)
      .map((page) => page.slug),
  );
  const free = SLUGS.filter((slug) => !taken.has(slug));
  return free.length ? rnd.pick(free) : `s${rnd.int(1e9)}`;
};
const body = (rnd: Random) => Array.from({ length: 6 }, (_, i) => `line ${i}${rnd.next() < 0.2 ? ' x' : ''}`).join('\n');

function baseTree(rnd: Random, size: number): Tree {
  const tree: Tree = new Map();
  for (let i = 0; i < size; i++) {
    const parentId = i === 0 || rnd.next() < 0.3 ? null : `p${rnd.int(i)}`;
    const page: MergeablePage = { pageId: `p${i}`, parentId, position: children(tree, parentId).length, title: `Page ${i}`, slug: null, markdown: body(rnd) };
    tree.set(page.pageId, { ...page, slug: freeSlug(tree, rnd, parentId) });
  }
  return tree;
}

function edit(base: Tree, rnd: Random, side: string, count: number): MergeablePage[] {
  const tree: Tree = new Map([...base].map(([id, page]) => [id, { ...page }]));
  for (let n = 0; n < count; n++) {
    const ids = [...tree.keys()];
    const kind = rnd.int(7);
    const id = ids.length ? rnd.pick(ids) : undefined;
    const page = id ? (tree.get(id) as MergeablePage) : undefined;
    if (!page || kind === 0) {
      const parentId = ids.length && rnd.next() < 0.6 ? rnd.pick(ids) : null;
      const newId = `${side}${n}`;
      const at = rnd.int(children(tree, parentId).length + 1);
      for (const sibling of children(tree, parentId)) if (sibling.position >= at) tree.set(sibling.pageId, { ...sibling, position: sibling.position + 1 });
      tree.set(newId, { pageId: newId, parentId, position: at, title: `New ${newId}`, slug: freeSlug(tree, rnd, parentId), markdown: body(rnd) });
    } else if (kind === 1) tree.set(page.pageId, { ...page, title: `${page.title} ${side}` });
    else if (kind === 2) tree.set(page.pageId, { ...page, slug: freeSlug(tree, rnd, page.parentId, page.pageId) });
    else if (kind === 3) {
      const lines = (page.markdown ?? '').split('\n');
      lines[rnd.int(lines.length)] = `${side} edit ${n}`;
      tree.set(page.pageId, { ...page, markdown: lines.join('\n') });
    } else if (kind === 4) {
      for (const gone of descendants(tree, page.pageId)) tree.delete(gone);
      renumber(tree, page.parentId);
    } else if (kind === 5) {
      const below = descendants(tree, page.pageId);
      const targets = [null, ...ids.filter((other) => !below.has(other))];
      const parentId = rnd.pick(targets);
      const old = page.parentId;
      tree.set(page.pageId, { ...page, parentId, position: children(tree, parentId).length + 0.5, slug: freeSlug(tree, rnd, parentId, page.pageId) });
      renumber(tree, old);
      renumber(tree, parentId);
    } else {
      const siblings = children(tree, page.parentId).filter((other) => other.pageId !== page.pageId);
      siblings.splice(rnd.int(siblings.length + 1), 0, page);
      siblings.forEach((sibling, position) => tree.set(sibling.pageId, { ...sibling, position }));
    }
  }
  return [...tree.values()];
}

/** What the SQL diff answers: every page whose row differs between base and either side. */
function differing(base: MergeablePage[], ours: MergeablePage[], theirs: MergeablePage[], extra: (id: string) => boolean): PageVersions<MergeablePage>[] {
  const [b, o, t] = [base, ours, theirs].map((pages) => new Map(pages.map((page) => [page.pageId, page])));
  const row = (page?: MergeablePage) => (page ? JSON.stringify([page.parentId, page.position, page.title, page.slug, page.markdown]) : '');
  const ids = new Set([...b.keys(), ...o.keys(), ...t.keys()]);
  return [...ids]
    .filter((id) => row(b.get(id)) !== row(o.get(id)) || row(b.get(id)) !== row(t.get(id)) || extra(id))
    .map((pageId) => ({ pageId, base: b.get(pageId), ours: o.get(pageId), theirs: t.get(pageId) }));
}

function lookup(theirs: MergeablePage[], reads: { rows: number }): TheirsLookup<MergeablePage> {
  const byId = new Map(theirs.map((page) => [page.pageId, page]));
  return {
    children: async (parentIds) => {
      const wanted = new Set(parentIds);
      const rows = theirs.filter((page) => wanted.has(page.parentId));
      reads.rows += rows.length;
      return rows.map((page) => ({ ...page }));
    },
    ancestors: async (ids) => {
      const found = new Map<string, MergeablePage>();
      for (const id of ids) {
        for (let page = byId.get(id); page && !found.has(page.pageId); page = page.parentId ? byId.get(page.parentId) : undefined) found.set(page.pageId, page);
      }
      reads.rows += found.size;
      return [...found.values()].map((page) => ({ ...page }));
    },
  };
}

const conflictKeys = (conflicts: { pageId: string; reason: string }[]) => conflicts.map((c) => `${c.pageId}: ${c.reason}`).sort();
const sorted = (pages: MergeablePage[]) => [...pages].sort((a, b) => (a.pageId < b.pageId ? -1 : 1));

describe('mergeChangedPages (partial merge) against the whole-tree merge', () => {
  const check = async (seed: number, size: number, edits: number, extra: (id: string) => boolean = () => false) => {
    const rnd = random(seed);
    const baseMap = baseTree(rnd, size);
    const base = [...baseMap.values()];
    const ours = edit(baseMap, rnd, 'o', 1 + rnd.int(edits));
    const theirs = rnd.next() < 0.15 ? base.map((page) => ({ ...page })) : edit(baseMap, rnd, 't', 1 + rnd.int(edits));
    const whole = mergePageTrees(base, ours, theirs);
    const reads = { rows: 0 };
    const partial = await mergeChangedPages(differing(base, ours, theirs, extra), lookup(theirs, reads));
    expect({ seed, conflicts: conflictKeys(partial.conflicts) }).toEqual({ seed, conflicts: conflictKeys(whole.conflicts) });
    if (whole.conflicts.length > 0) return { conflict: true, reads };
    // The partial result applied to theirs is the whole-tree result.
    const applied = new Map(theirs.map((page) => [page.pageId, page]));
    for (const id of partial.removed) applied.delete(id);
    for (const page of partial.changed) applied.set(page.pageId, page);
    expect({ seed, pages: sorted([...applied.values()]) }).toEqual({ seed, pages: sorted(whole.pages) });
    expect({ seed, changed: partial.changed.map((page) => page.pageId).sort() }).toEqual({ seed, changed: [...whole.changed].sort() });
    expect({ seed, removed: [...partial.removed].sort() }).toEqual({ seed, removed: [...whole.removed].sort() });
    return { conflict: false, reads };
  };

  it('gives the same pages and conflicts on 3,000 random small trees', async () => {
    let clean = 0;
    for (let seed = 1; seed <= 3000; seed++) if (!(await check(seed, 3 + (seed % 12), 4)).conflict) clean++;
    // Both outcomes are exercised.
    expect(clean).toBeGreaterThan(300);
    expect(clean).toBeLessThan(2900);
  });

  it('gives the same answer when the diff holds pages that did not change (more is harmless)', async () => {
    for (let seed = 5001; seed <= 5500; seed++) await check(seed, 10, 3, (id) => id.endsWith('1'));
  });

  it('reads theirs in proportion to the change, not the space', async () => {
    for (let seed = 9001; seed <= 9020; seed++) {
      const { reads } = await check(seed, 2000, 2);
      // The groups touched by a few edits, never the 2,000 pages.
      expect(reads.rows).toBeLessThan(1500);
    }
  });
});
