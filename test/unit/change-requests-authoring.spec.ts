import { parseChanges } from '../../src/modules/change-requests/authoring/content-changes';
import { readFrontmatter, rewriteLinks, TreeEditor, type TreePage } from '../../src/modules/change-requests/authoring/tree-editor';

const page = (pageId: string, overrides: Partial<TreePage> = {}): TreePage => ({
  pageId,
  parentId: null,
  position: 0,
  kind: 'document',
  title: pageId,
  emoji: null,
  icon: null,
  slug: pageId.toLowerCase(),
  description: null,
  layout: null,
  cover: null,
  hidden: false,
  noIndex: false,
  noRobotsIndex: false,
  variables: {},
  documentId: null,
  linkTarget: null,
  computed: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  markdown: '',
  ...overrides,
});

describe('parseChanges', () => {
  it('names the index and the field of the first invalid change', () => {
    expect(() => parseChanges([{ operation: 'delete_page', page: 'a' }, { operation: 'delete_page' }])).toThrow('changes[1].page: is required');
    expect(() => parseChanges([{ operation: 'nope' }])).toThrow(/changes\[0\]\.operation/);
    expect(() => parseChanges([{ operation: 'delete_page', page: 'a', extra: 1 }])).toThrow('changes[0].extra: is not a field of delete_page');
    expect(() => parseChanges([{ operation: 'insert_page', document: { document: 'x' } }])).toThrow(
      'changes[0].document.document: must be a JSON document object',
    );
    expect(() => parseChanges([{ operation: 'insert_page', document: { markdown: '', document: {} } }])).toThrow(/must be \{"markdown"/);
    expect(() => parseChanges([{ operation: 'update_page', page: 'a', at: -1 }])).toThrow(/changes\[0\]\.at/);
  });
  it('refuses a ref used twice and files with no or two sources', () => {
    const insert = { operation: 'insert_page', ref: 'r', document: {} };
    expect(() => parseChanges([insert, insert])).toThrow(/ref "r" is used twice/);
    expect(() => parseChanges([{ operation: 'insert_files', files: [{ name: 'a.png' }] }])).toThrow(/exactly one of url and base64/);
    expect(() => parseChanges([{ operation: 'insert_files', files: [{ name: 'a.png', base64: 'AA==' }] }])).toThrow(/contentType: is required/);
  });
  it('reads every kind of change', () => {
    const parsed = parseChanges([
      { operation: 'insert_page', title: 'T', into: 'p', at: 0, document: { markdown: 'x' } },
      { operation: 'update_page', page: 'p', into: null },
      { operation: 'revert_page', page: 'p' },
      { operation: 'insert_files', files: [{ name: 'a.png', contentType: 'image/png', base64: 'AA==' }] },
    ]);
    expect(parsed.map((change) => change.operation)).toEqual(['insert_page', 'update_page', 'revert_page', 'insert_files']);
    expect(parsed[1]).toMatchObject({ into: null });
  });
});

describe('TreeEditor', () => {
  it('inserts at a place, numbering siblings again, and takes the title from a leading heading', () => {
    const editor = new TreeEditor([page('A'), page('B', { position: 1 })], new Set());
    const id = editor.insertPage(0, { operation: 'insert_page', at: 1, markdown: '# Hello there\n\nBody' });
    const inserted = editor.pages.get(id);
    expect(inserted).toMatchObject({ title: 'Hello there', slug: 'hello-there', position: 1, markdown: 'Body' });
    expect(editor.pages.get('B')?.position).toBe(2);
  });
  it('refuses a sibling slug clash and a move under a descendant, naming the change', () => {
    const editor = new TreeEditor([page('A'), page('B', { position: 1, parentId: 'A' })], new Set());
    expect(() => editor.insertPage(3, { operation: 'insert_page', slug: 'a', markdown: '' })).toThrow(/changes\[3\]\.slug/);
    expect(() => editor.updatePage(4, { operation: 'update_page', page: 'A', into: 'B' })).toThrow(/changes\[4\]\.into: .* under itself/);
  });
  it('deletes a page with its sub-pages', () => {
    const editor = new TreeEditor([page('A'), page('B', { parentId: 'A' }), page('C', { position: 1 })], new Set());
    editor.deletePage(0, 'A');
    expect([...editor.pages.keys()]).toEqual(['C']);
    expect(editor.pages.get('C')?.position).toBe(0);
  });
  it('resolves links by ref, slug path, .md path and relative path against the final tree', () => {
    const editor = new TreeEditor([page('G', { slug: 'guide' }), page('I', { slug: 'install', parentId: 'G' })], new Set());
    const id = editor.insertPage(0, {
      operation: 'insert_page',
      title: 'New',
      ref: 'new',
      markdown: '[a](/pages/guide/install) [b](/pages/guide.md) [c](./guide/install.md#setup) [d](./later.md) [e](https://x.test) `[f](./guide.md)`',
    });
    editor.insertPage(1, { operation: 'insert_page', title: 'Later', ref: 'later', markdown: '[back](./new.md)' });
    editor.finish();
    const later = [...editor.pages.values()].find((p) => p.title === 'Later') as TreePage;
    expect(editor.pages.get(id)?.markdown).toBe(
      `[a](/pages/I) [b](/pages/G) [c](/pages/I#setup) [d](/pages/${later.pageId}) [e](https://x.test) \`[f](./guide.md)\``,
    );
    expect(later.markdown).toBe(`[back](/pages/${id})`);
  });
  it('reads front matter', () => {
    expect(readFrontmatter('---\ntitle: "Hi"\ndescription: d\n---\nbody')).toEqual({ title: 'Hi', description: 'd', body: 'body' });
    expect(rewriteLinks('```\n[x](a)\n```\n[y](a)', () => 'b')).toBe('```\n[x](a)\n```\n[y](b)');
  });
});
