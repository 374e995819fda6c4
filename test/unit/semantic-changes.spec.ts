import { semanticChanges, type SemanticFile, type SemanticPage } from '../../src/modules/content/semantic/semantic-changes';

const page = (id: string, over: Partial<SemanticPage> = {}): SemanticPage => ({
  pageId: id,
  parentId: null,
  kind: 'document',
  title: id,
  emoji: null,
  slug: id,
  path: id,
  description: null,
  layout: null,
  cover: null,
  variables: {},
  documentId: `doc-${id}`,
  linkTarget: null,
  computed: null,
  ...over,
});
const file = (id: string, over: Partial<SemanticFile> = {}): SemanticFile => ({
  fileId: id,
  name: `${id}.png`,
  contentType: 'image/png',
  size: 10,
  width: 1,
  height: 1,
  blobId: `blob-${id}`,
  ...over,
});

describe('semanticChanges', () => {
  it('gives nothing for rows equal on both sides or a path change alone (a sub-page of a moved page)', () => {
    const a = page('a');
    expect(semanticChanges([{ before: a, after: { ...a } }], [])).toEqual([]);
    // A sub-page of a moved page: new path, same parent.
    expect(semanticChanges([{ before: a, after: { ...a, path: 'x/a' } }], [])).toEqual([]);
    // `{}` variables and no variables are the same.
    expect(semanticChanges([{ before: a, after: { ...a, variables: null } }], [])).toEqual([]);
  });

  it('reports created, deleted, moved and edited pages, ordered by path', () => {
    const changes = semanticChanges(
      [{ after: page('z') }, { before: page('b') }, { before: page('m'), after: page('m', { parentId: 'p', path: 'p/m', title: 'M' }) }],
      [],
    );
    expect(changes.map((change) => change.type)).toEqual(['page_deleted', 'page_moved', 'page_edited', 'page_created']);
    expect(changes[1]).toMatchObject({ parentBefore: null, parentAfter: 'p' });
    expect(changes[2]).toMatchObject({ attributes: { title: { before: 'm', after: 'M' } } });
  });

  it('names the attributes of each kind of page only', () => {
    const doc = semanticChanges(
      [{ before: page('d'), after: page('d', { description: 'x', documentId: 'doc-2', hidden: true } as Partial<SemanticPage>) }],
      [],
    );
    expect(doc).toEqual([
      {
        type: 'page_edited',
        page: expect.anything(),
        attributes: { description: { before: null, after: 'x' }, document: { before: 'doc-d', after: 'doc-2' } },
      },
    ]);
    const group = semanticChanges([{ before: page('g', { kind: 'group' }), after: page('g', { kind: 'group', description: 'ignored', slug: 'h' }) }], []);
    expect(group).toMatchObject([{ attributes: { slug: { before: 'g', after: 'h' } } }]);
    expect(Object.keys((group[0] as { attributes: object }).attributes)).toEqual(['slug']);
    const link = semanticChanges(
      [
        {
          before: page('l', { kind: 'link', linkTarget: { kind: 'url', url: 'a' } }),
          after: page('l', { kind: 'link', linkTarget: { kind: 'url', url: 'b' } }),
        },
      ],
      [],
    );
    expect(link).toMatchObject([{ attributes: { target: { before: { url: 'a' }, after: { url: 'b' } } } }]);
  });

  it('reports files created, deleted and edited (name, size, bytes)', () => {
    const changes = semanticChanges(
      [],
      [
        { after: file('new') },
        { before: file('gone') },
        { before: file('same'), after: file('same') },
        { before: file('e'), after: file('e', { name: 'renamed.png', size: 20, blobId: 'other' }) },
      ],
    );
    expect(changes.map((change) => change.type)).toEqual(['file_deleted', 'file_created', 'file_edited']);
    expect(changes[2]).toMatchObject({ attributes: { name: { before: 'e.png', after: 'renamed.png' }, size: { before: 10, after: 20 }, downloadURL: {} } });
  });
});
