import { deriveTreeKeys, HIDDEN_KEY, keyDepth, KeyedNode } from '../../src/modules/content/tree/tree-keys';

/** The order the recursive walk gave: depth first, siblings by (lpad(position), id), byte order. */
function walkOrder(nodes: KeyedNode[]): string[] {
  const children = (parentId: string | null) =>
    nodes
      .filter((node) => node.parentId === parentId)
      .sort((a, b) => {
        const ka = String(a.position).padStart(10, '0') + a.pageId;
        const kb = String(b.position).padStart(10, '0') + b.pageId;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
  const out: string[] = [];
  const visit = (node: KeyedNode) => {
    out.push(node.pageId);
    if (node.kind !== 'link') for (const child of children(node.pageId)) if (child.kind !== 'group') visit(child);
  };
  for (const top of children(null)) visit(top);
  return out;
}

const byKey = (keys: Map<string, string>) =>
  [...keys.entries()]
    .filter(([, key]) => key !== HIDDEN_KEY)
    .sort(([, a], [, b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)) as number)
    .map(([id]) => id);

describe('tree keys', () => {
  it('order pages as the walk does: ids that begin one another, ties on position, links and nested groups hiding their subtrees', () => {
    const nodes: KeyedNode[] = [
      { pageId: 'a', parentId: null, position: 1, kind: 'document' },
      { pageId: 'ab', parentId: null, position: 1, kind: 'document' },
      { pageId: 'a-child', parentId: 'a', position: 0, kind: 'document' },
      { pageId: 'ab-child', parentId: 'ab', position: 12, kind: 'document' },
      { pageId: 'ab-child2', parentId: 'ab', position: 2, kind: 'document' },
      { pageId: 'top-group', parentId: null, position: 0, kind: 'group' },
      { pageId: 'in-group', parentId: 'top-group', position: 0, kind: 'document' },
      { pageId: 'nested-group', parentId: 'a', position: 1, kind: 'group' },
      { pageId: 'under-nested', parentId: 'nested-group', position: 0, kind: 'document' },
      { pageId: 'link', parentId: 'ab', position: 20, kind: 'link' },
      { pageId: 'under-link', parentId: 'link', position: 0, kind: 'document' },
      { pageId: 'far', parentId: null, position: 2_000_000_000, kind: 'document' },
    ];
    const keys = deriveTreeKeys(nodes);
    expect(byKey(keys)).toEqual(walkOrder(nodes));
    expect(byKey(keys)).toEqual(['top-group', 'in-group', 'a', 'a-child', 'ab', 'ab-child2', 'ab-child', 'link', 'far']);
    expect(['nested-group', 'under-nested', 'under-link'].map((id) => keys.get(id))).toEqual([HIDDEN_KEY, HIDDEN_KEY, HIDDEN_KEY]);
    expect(keyDepth(keys.get('a') as string)).toBe(0);
    expect(keyDepth(keys.get('ab-child') as string)).toBe(1);
  });

  it('keys pages under parents known from elsewhere (a delta over its base), and refuses an unknown parent', () => {
    const base = deriveTreeKeys([
      { pageId: 'p', parentId: null, position: 0, kind: 'document' },
      { pageId: 'l', parentId: null, position: 1, kind: 'link' },
    ]);
    const known = new Map([
      ['p', { key: base.get('p') as string, kind: 'document' as const }],
      ['l', { key: base.get('l') as string, kind: 'link' as const }],
    ]);
    const keys = deriveTreeKeys(
      [
        { pageId: 'c', parentId: 'p', position: 3, kind: 'document' },
        { pageId: 'd', parentId: 'c', position: 0, kind: 'document' },
        { pageId: 'e', parentId: 'l', position: 0, kind: 'document' },
      ],
      known,
    );
    expect(keys.get('d')?.startsWith(keys.get('c') as string)).toBe(true);
    expect(keyDepth(keys.get('d') as string)).toBe(2);
    expect(keys.get('e')).toBe(HIDDEN_KEY);
    expect(() => deriveTreeKeys([{ pageId: 'x', parentId: 'nowhere', position: 0, kind: 'document' }])).toThrow(/unknown parent/);
  });
});
