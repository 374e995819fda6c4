import { AppConfig, loadConfig } from '../../src/config/app-config';
import type { PageWithBody, RevisionContext, TreeRow } from '../../src/modules/content/content.read-model';
import { PagePresenter } from '../../src/modules/content/content.presenter';
import { presentPagesStream } from '../../src/modules/content/revision-stream.presenter';
import type { PageKind } from '../../src/modules/content/revision-page.entity';

/**
 * The streamed page tree (GET /content, /content/pages) must be the very JSON the in-memory
 * presenter builds, whatever the shape of the tree and however the rows fall into batches. The
 * rows' text parts are made here as the repository's query makes them (that the query's text is
 * JSON.stringify's is checked byte for byte on PostgreSQL by test/e2e/content-storage.e2e-spec.ts).
 */
describe('streamed page tree', () => {
  const config: AppConfig = loadConfig({ PUBLIC_URL: 'http://quire.test', APP_URL: 'http://app.quire.test' });
  const context: RevisionContext = { config, organizationId: 'org1', spaceId: 'space1', revisionId: 'rev1', active: true };
  const at = new Date('2026-01-01T00:00:00.000Z');

  const page = (pageId: string, parentId: string | null, position: number, kind: PageKind, markdown: string | null = null): PageWithBody => ({
    revisionId: 'rev1',
    pageId,
    parentId,
    position,
    kind,
    title: `Title ${pageId}`,
    emoji: null,
    icon: null,
    slug: kind === 'link' ? null : pageId,
    path: kind === 'link' ? null : `${parentId ? `${parentId}/` : ''}${pageId}`,
    description: null,
    layout: null,
    cover: null,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    documentId: markdown ? `doc-${pageId}` : null,
    linkTarget: kind === 'link' ? { kind: 'url', url: 'https://example.com' } : null,
    computed: null,
    createdAt: at,
    updatedAt: at,
    markdown,
  });

  const json = (value: unknown) => JSON.stringify(value);
  /** A row as `ContentRepository.streamTree` yields it. */
  const treeRow = (page: PageWithBody, depth: number): TreeRow => {
    const document = page.kind !== 'link' && page.kind !== 'group';
    return {
      depth,
      kind: page.kind,
      pageId: page.pageId,
      path: page.path,
      head: `{"id":${json(page.pageId)},"title":${json(page.title)}${page.emoji ? `,"emoji":${json(page.emoji)}` : ''}${page.icon ? `,"icon":${json(page.icon)}` : ''}`,
      createdMs: page.createdAt.getTime(),
      updatedMs: page.updatedAt.getTime(),
      slugPath: page.kind === 'link' ? null : `,"slug":${json(page.slug)},"path":${json(page.path)}`,
      flags:
        page.kind === 'link'
          ? `,"hidden":${page.hidden}`
          : `,"hidden":${page.hidden},"noIndex":${page.noIndex},"noRobotsIndex":${page.noRobotsIndex}${document && page.description ? `,"description":${json(page.description)}` : ''}`,
      layout: document ? page.layout : null,
      cover: document ? page.cover : null,
      variables: document && Object.keys(page.variables ?? {}).length > 0 ? page.variables : null,
      linkTarget: page.kind === 'link' ? page.linkTarget : null,
      documentId: document ? page.documentId : null,
      computed: page.computed,
      markdown: document ? page.markdown : null,
    };
  };

  /** Depth first, siblings by position, leaving out what the presenter leaves out: the order the repository's query yields. */
  const depthFirst = (pages: PageWithBody[]): TreeRow[] => {
    const rows: TreeRow[] = [];
    const visit = (parentId: string | null, depth: number) => {
      const children = pages
        .filter((p) => p.parentId === parentId && (depth === 0 || p.kind !== 'group'))
        .sort((a, b) => a.position - b.position || a.pageId.localeCompare(b.pageId));
      for (const child of children) {
        rows.push(treeRow(child, depth));
        if (child.kind !== 'link') visit(child.pageId, depth + 1);
      }
    };
    visit(null, 0);
    return rows;
  };

  async function streamed(pages: PageWithBody[], batchSize: number, allPaths: Map<string, string | null>): Promise<unknown> {
    const rows = depthFirst(pages);
    async function* batches() {
      for (let i = 0; i < rows.length; i += batchSize) yield rows.slice(i, i + batchSize);
    }
    let text = '';
    const pathsOf = async (ids: string[]) => new Map(ids.filter((id) => allPaths.has(id)).map((id) => [id, allPaths.get(id) ?? null]));
    for await (const chunk of presentPagesStream({ context, tree: batches(), pathsOf })) text += chunk;
    return JSON.parse(text);
  }

  const tree: PageWithBody[] = [
    page('b', null, 1, 'document', 'See [a](/pages/a) and [deep](/pages/d2) and [gone](/pages/nope).'),
    page('a', null, 0, 'group'),
    page('a1', 'a', 0, 'document', 'First [b](/pages/b)'),
    page('a2', 'a', 1, 'link'),
    page('x', 'a2', 0, 'document', 'under a link: not shown'),
    page('d1', 'b', 0, 'document', 'child'),
    page('d2', 'd1', 0, 'document', 'grandchild [up](/pages/b#top)'),
    page('g', 'd1', 1, 'group'),
    page('g1', 'g', 0, 'document', 'under a nested group: not shown'),
    page('c', null, 2, 'link'),
    page('e', null, 3, 'document', ''),
  ];
  const paths = new Map(tree.map((p) => [p.pageId, p.path]));

  it.each([1, 2, 3, 500])('is the in-memory tree, in batches of %i', async (batchSize) => {
    expect(await streamed(tree, batchSize, paths)).toEqual({ pages: new PagePresenter(context, tree).roots() });
  });

  it('is an empty list for a revision without pages', async () => {
    expect(await streamed([], 10, new Map())).toEqual({ pages: [] });
  });

  it('is the in-memory tree for a deep chain and a wide level', async () => {
    const chain = Array.from({ length: 200 }, (_, i) => page(`c${i}`, i === 0 ? null : `c${i - 1}`, 0, 'document', `[next](/pages/c${i + 1})`));
    const wide = Array.from({ length: 300 }, (_, i) => page(`w${i}`, null, i + 1, i % 7 === 0 ? 'link' : 'document', `body ${i}`));
    const pages = [...chain, ...wide];
    const all = new Map(pages.map((p) => [p.pageId, p.path]));
    expect(await streamed(pages, 64, all)).toEqual({ pages: new PagePresenter(context, pages).roots() });
  });
});
