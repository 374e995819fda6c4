import { describeConflicts, mergeMarkdown, mergePageTrees, type MergeablePage } from '../../src/modules/change-requests/merge/three-way-merge';

const page = (pageId: string, overrides: Partial<MergeablePage> = {}): MergeablePage => ({
  pageId,
  parentId: null,
  position: 0,
  title: pageId,
  slug: pageId.toLowerCase(),
  markdown: `${pageId} body`,
  ...overrides,
});
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const edit = (text: string[], at: number, value: string) => text.map((line, i) => (i === at ? value : line)).join('\n');

describe('mergeMarkdown (line-level three-way merge)', () => {
  const base = lines(10);
  it('takes the side that changed', () => {
    expect(mergeMarkdown(base.join('\n'), edit(base, 2, 'ours'), base.join('\n'))).toBe(edit(base, 2, 'ours'));
    expect(mergeMarkdown(base.join('\n'), base.join('\n'), edit(base, 2, 'theirs'))).toBe(edit(base, 2, 'theirs'));
  });
  it('keeps edits of both sides to different lines', () => {
    const merged = mergeMarkdown(base.join('\n'), edit(base, 1, 'ours'), edit(base, 8, 'theirs'));
    expect(merged?.split('\n')).toEqual(base.map((line, i) => (i === 1 ? 'ours' : i === 8 ? 'theirs' : line)));
  });
  it('accepts the same edit on both sides', () => {
    expect(mergeMarkdown(base.join('\n'), edit(base, 4, 'same'), edit(base, 4, 'same'))).toBe(edit(base, 4, 'same'));
  });
  it('answers null for overlapping edits', () => {
    expect(mergeMarkdown(base.join('\n'), edit(base, 4, 'ours'), edit(base, 4, 'theirs'))).toBeNull();
  });
  it('keeps insertions of both sides at different places', () => {
    const ours = ['intro', ...base].join('\n');
    const theirs = [...base, 'outro'].join('\n');
    expect(mergeMarkdown(base.join('\n'), ours, theirs)).toBe(['intro', ...base, 'outro'].join('\n'));
  });
});

describe('mergePageTrees (by stable page id)', () => {
  const base = [page('A'), page('B', { position: 1 })];

  it('keeps pages added on either side and pages changed on one side', () => {
    const ours = [page('A', { title: 'A renamed' }), page('B', { position: 1 }), page('C', { position: 2 })];
    const theirs = [page('A'), page('B', { position: 1, markdown: 'new body' }), page('D', { position: 2 })];
    const result = mergePageTrees(base, ours, theirs);
    expect(result.conflicts).toEqual([]);
    const byId = new Map(result.pages.map((p) => [p.pageId, p]));
    expect(byId.get('A')?.title).toBe('A renamed');
    expect(byId.get('B')?.markdown).toBe('new body');
    expect([...byId.keys()].sort()).toEqual(['A', 'B', 'C', 'D']);
    // Siblings are numbered again without gaps or ties.
    expect(result.pages.map((p) => p.position).sort()).toEqual([0, 1, 2, 3]);
    expect(result.changed.has('C')).toBe(true);
    expect(result.changed.has('B')).toBe(false);
  });

  it('deletes a page deleted on one side and unchanged on the other', () => {
    const result = mergePageTrees(base, [page('A')], base);
    expect(result.conflicts).toEqual([]);
    expect(result.pages.map((p) => p.pageId)).toEqual(['A']);
    expect(result.removed).toEqual(new Set(['B']));
  });

  it('is a conflict when one side deletes a page the other edited', () => {
    const result = mergePageTrees(base, [page('A')], [page('A'), page('B', { position: 1, markdown: 'edited' })]);
    expect(result.conflicts).toEqual([{ pageId: 'B', title: 'B', reason: 'deleted on one side, edited on the other' }]);
  });

  it('merges settings and bodies of a page both sides changed', () => {
    const body = lines(10);
    const b = [page('A', { markdown: body.join('\n') })];
    const ours = [page('A', { title: 'New title', markdown: edit(body, 0, 'ours') })];
    const theirs = [page('A', { slug: 'moved-slug', markdown: edit(body, 9, 'theirs') })];
    const result = mergePageTrees(b, ours, theirs);
    expect(result.conflicts).toEqual([]);
    expect(result.pages[0]).toMatchObject({ title: 'New title', slug: 'moved-slug' });
    expect(result.pages[0].markdown?.split('\n')[0]).toBe('ours');
    expect(result.pages[0].markdown?.split('\n')[9]).toBe('theirs');
  });

  it('is a conflict for overlapping body edits, different renames and different moves', () => {
    const tree = [page('P'), page('Q', { position: 1 }), page('X', { position: 2 })];
    const ours = [page('P'), page('Q', { position: 1 }), page('X', { parentId: 'P', title: 'X1', markdown: 'ours' })];
    const theirs = [page('P'), page('Q', { position: 1 }), page('X', { parentId: 'Q', title: 'X2', markdown: 'theirs' })];
    const reasons = mergePageTrees(tree, ours, theirs).conflicts.map((c) => c.reason);
    expect(reasons).toEqual(expect.arrayContaining(['changed differently on both sides', 'moved to different parents on both sides', 'edited on both sides']));
  });

  it('is a conflict when a page is added under a page the other side deleted', () => {
    const result = mergePageTrees(base, [...base, page('C', { parentId: 'B' })], [page('A')]);
    expect(result.conflicts.map((c) => [c.pageId, c.reason])).toEqual([['C', 'parent deleted on the other side']]);
  });

  it('is a conflict when both sides give siblings the same slug', () => {
    const result = mergePageTrees(base, [...base, page('C', { slug: 'same', position: 2 })], [...base, page('D', { slug: 'same', position: 2 })]);
    expect(result.conflicts.map((c) => c.reason)).toEqual(['slug taken by another page']);
  });

  it('is a conflict when two moves make a cycle', () => {
    const result = mergePageTrees(base, [page('A', { parentId: 'B' }), page('B', { position: 1 })], [page('A'), page('B', { parentId: 'A', position: 0 })]);
    expect(result.conflicts.some((c) => c.reason === 'moved under itself')).toBe(true);
  });

  it('names every conflicting page in the message', () => {
    expect(describeConflicts([{ pageId: 'p1', title: 'Intro', reason: 'edited on both sides' }])).toBe('Conflicting pages: "Intro" (p1): edited on both sides');
  });
});
