import type { SpaceAccess } from '../../src/modules/access/space-access.service';
import { presentRevision, type RevisionPageJson } from '../../src/modules/content/content.presenter';
import { ContentService } from '../../src/modules/content/content.service';
import { documentPage, DraftPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * GET /content, /content/pages and their revisions/{id} twins are streamed, each page's JSON made
 * of parts PostgreSQL writes and parts the stream presenter adds. Their bytes must be what the
 * in-memory presenter (`presentRevision`, `PagePresenter`) gives for the same revision, with
 * `pages` last in each object (a streamed page's children follow it): a space with every kind of
 * page, every optional field, awkward text, relative refs within and across batches, files, a
 * computed page, git metadata.
 */
describe('streamed content (bytes)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  /** The space's revisions: the older one, then the active one. */
  let revisions: string[];
  let access: SpaceAccess;

  // Everything JSON.stringify escapes (quotes, backslash, control characters, a tab), and what it does not.
  const AWKWARD = 'quote " backslash \\ nul-ish \u0001 \u001f tab\tcr\r bell\u0007 form\f back\b U+2028\u2028 é 😀 </script> \u007f';
  const BIG = 600; // more pages than a batch (500), with refs across batches

  function pagesOf(version: number): DraftPage[] {
    const at = new Date('2026-03-04T05:06:07.089Z');
    const pages: DraftPage[] = [
      documentPage({
        pageId: 'intro',
        parentId: null,
        position: 0,
        title: `Intro ${AWKWARD}`,
        slug: 'intro',
        emoji: '1f600',
        icon: 'book',
        description: `A page ${AWKWARD}`,
        cover: { ref: { kind: 'url', url: 'https://example.com/c.png' }, yPos: 12 },
        layout: { width: 'wide', outline: false } as DraftPage['layout'],
        variables: { a: 1, b: 'two', c: true, d: 1.5 },
        createdAt: new Date('0500-01-02T03:04:05.006Z'),
        updatedAt: at,
        markdown: [
          `# Intro v${version} ${AWKWARD}`,
          'See [deep](/pages/deep) and [api](/pages/api#auth-"x") and [gone](/pages/nope) and [self](/pages/intro).',
          'Inline `[code](/pages/deep)` stays, so does',
          '```md',
          '[fenced](/pages/deep)',
          '```',
          '~~~',
          '[tilde](/pages/deep)',
          '~~~',
          `Last [big](/pages/b${BIG - 1}) and [group child](/pages/gchild)`,
        ].join('\n'),
      }),
      documentPage({
        pageId: 'guide',
        parentId: null,
        position: 1,
        title: 'Guide',
        slug: 'guide',
        hidden: true,
        noIndex: true,
        noRobotsIndex: true,
        markdown: '',
      }),
      documentPage({
        pageId: 'deep',
        parentId: 'guide',
        position: 0,
        title: 'Deep',
        slug: 'deep',
        markdown: 'Up [intro](/pages/intro#top) and [api](/pages/api)',
      }),
      documentPage({
        pageId: 'api',
        parentId: 'deep',
        position: 0,
        title: 'Api',
        slug: 'café "api"',
        markdown: `tabs\tand "quotes" [deep](/pages/deep) ${AWKWARD}`,
      }),
      documentPage({ pageId: 'nested-group', parentId: 'guide', position: 1, title: 'Hidden group', slug: 'hidden', kind: 'group', markdown: undefined }),
      documentPage({ pageId: 'under-hidden', parentId: 'nested-group', position: 0, title: 'Not shown', slug: 'not-shown', markdown: 'x' }),
      documentPage({ pageId: 'grp', parentId: null, position: 2, title: 'Group', slug: 'grp', kind: 'group', hidden: true }),
      documentPage({ pageId: 'gchild', parentId: 'grp', position: 0, title: 'In group', slug: 'in-group', markdown: `[intro](/pages/intro)` }),
      documentPage({
        pageId: 'link-url',
        parentId: null,
        position: 3,
        title: 'Link',
        slug: null,
        kind: 'link',
        linkTarget: { kind: 'url', url: 'https://example.com/?a="b"' },
      }),
      documentPage({
        pageId: 'link-page',
        parentId: 'guide',
        position: 2,
        title: 'To a page',
        slug: null,
        kind: 'link',
        linkTarget: { kind: 'page', page: 'deep' },
      }),
      documentPage({
        pageId: 'link-none',
        parentId: null,
        position: 4,
        title: 'Empty target',
        slug: null,
        kind: 'link',
        linkTarget: { kind: 'url', url: '' },
        hidden: true,
      }),
      documentPage({
        pageId: 'computed',
        parentId: null,
        position: 5,
        title: 'Computed',
        slug: 'computed',
        computed: { type: 'test:unknown-generator', dependencies: {}, props: { n: 1 } },
        markdown: 'stored body of a computed page [intro](/pages/intro)',
      }),
      documentPage({ pageId: 'tie-b', parentId: null, position: 6, title: 'Tie b', slug: 'tie-b', markdown: 'b' }),
      documentPage({ pageId: 'tie-a', parentId: null, position: 6, title: 'Tie a', slug: 'tie-a', markdown: 'a' }),
      documentPage({ pageId: 'big', parentId: null, position: 7, title: 'Big', slug: 'big', markdown: 'many children' }),
    ];
    for (let i = 0; i < BIG; i++) {
      pages.push(
        documentPage({
          pageId: `b${i}`,
          parentId: i % 10 === 0 ? 'big' : `b${i - (i % 10)}`,
          position: i,
          title: `Big ${i}`,
          slug: `b-${i}`,
          createdAt: at,
          updatedAt: new Date(at.getTime() + i),
          markdown: i % 3 === 0 ? `plain ${i} "quoted"\n\nline` : `[first](/pages/b0) [far](/pages/b${BIG - 1 - i}#x) [intro](/pages/intro)`,
        }),
      );
    }
    return pages;
  }

  async function writeRevision(version: number): Promise<string> {
    const writes = t.app.get(SpaceUnitOfWork);
    const writer = t.app.get(RevisionWriter);
    const files = [
      { fileId: `f${version}a`, name: 'a "quoted".png', contentType: 'image/png', size: 3, width: 4, height: 3, data: Buffer.from('abc') },
      { fileId: `f${version}b`, name: 'b.txt', contentType: 'text/plain', size: 2, width: null, height: null, data: Buffer.from('hi') },
    ];
    const revision = await writes.run(space.id, org.admin.user, 'edit', ({ commitRevision }) =>
      commitRevision((parent, em) =>
        writer.write(
          {
            spaceId: space.id,
            parents: [parent],
            type: 'edits',
            createdBy: null,
            pages: pagesOf(version),
            files,
            variables: { v: version },
            git: { oid: `oid${version}`, message: `commit ${AWKWARD}`, createdByGitBook: false },
          },
          em,
        ),
      ),
    );
    return (revision as unknown as { id: string }).id;
  }

  // Two revisions of 615 pages each: seconds on a quiet machine, more than the default 30 s on a saturated one.
  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    space = await createSpace(t, org);
    revisions = [await writeRevision(1), await writeRevision(2)];
    const row = await t.dataSource.query('SELECT organization_id, revision_id FROM spaces WHERE id = $1', [space.id]);
    access = { space: { id: space.id, organizationId: row[0].organization_id, revisionId: row[0].revision_id } } as unknown as SpaceAccess;
  }, 120_000);
  afterAll(() => t.close());

  /** `pages` moved last in the revision and in every page, as the stream writes them. */
  function pagesLast<T extends object>(json: T): T {
    const { pages, ...rest } = json as T & { pages?: RevisionPageJson[] };
    return (pages === undefined ? rest : { ...rest, pages: pages.map((page) => pagesLast(page)) }) as T;
  }

  async function expected(revisionId: string, query: { metadata: boolean; computed: boolean }): Promise<string> {
    const content = await t.app.get(ContentService).revision(access, revisionId, query.computed);
    return JSON.stringify(pagesLast(presentRevision(content, { metadata: query.metadata })));
  }

  const get = (path: string) =>
    t.http
      .get(path)
      .set(...org.admin.auth)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      });

  it('has the revision as written (the fixture is what the test means)', async () => {
    expect(revisions[1]).toBe(access.space.revisionId);
    const res = await get(`/v1/spaces/${space.id}/content`).expect(200);
    const body = JSON.parse(res.body as string);
    expect(body.pages.map((page: { id: string }) => page.id)).toEqual(['intro', 'guide', 'grp', 'link-url', 'link-none', 'computed', 'tie-a', 'tie-b', 'big']);
    // Refs made relative (one whose anchor has a quote), code left alone, an old date, a batch boundary crossed.
    const text = res.body as string;
    for (const part of ['[api](guide/deep/café \\"api\\"#auth-\\"x\\")', '`[code](/pages/deep)`', '"createdAt":"0500-01-02T03:04:05.006Z"', '"id":"b599"']) {
      expect([part, text.includes(part)]).toEqual([part, true]);
    }
  });

  it.each([
    ['active', 1, { metadata: true, computed: true }],
    ['active, metadata=false', 1, { metadata: false, computed: true }],
    ['active, computed=false', 1, { metadata: true, computed: false }],
    ['older revision', 0, { metadata: true, computed: true }],
    ['older revision, metadata=false, computed=false', 0, { metadata: false, computed: false }],
  ])('GET a revision (%s) is the in-memory presenter, byte for byte', async (_name, index, query) => {
    const revisionId = revisions[index];
    const route = index === 1 ? `/v1/spaces/${space.id}/content` : `/v1/spaces/${space.id}/revisions/${revisionId}`;
    const res = await get(`${route}?metadata=${query.metadata}&computed=${query.computed}`).expect(200);
    expect(res.body).toBe(await expected(revisionId, query));
    expectContract({ ...res, body: JSON.parse(res.body as string) } as never, index === 1 ? 'getCurrentRevision' : 'getRevisionById');
  });

  it.each([
    ['active', 1, true],
    ['active, computed=false', 1, false],
    ['older revision', 0, true],
  ])('GET the pages (%s) is the in-memory presenter, byte for byte', async (_name, index, computed) => {
    const revisionId = revisions[index];
    const route = index === 1 ? `/v1/spaces/${space.id}/content/pages` : `/v1/spaces/${space.id}/revisions/${revisionId}/pages`;
    const res = await get(`${route}?computed=${computed}`).expect(200);
    const { pages } = JSON.parse(await expected(revisionId, { metadata: true, computed })) as { pages: unknown };
    expect(res.body).toBe(JSON.stringify({ pages }));
  });

  // The stream holds a connection for its cursor; the paths its bodies link to across batches are read on
  // that same connection. On a second connection, streams that hold a whole pool would wait forever.
  it("reads linked paths on the stream's own connection: a server with a pool of one connection answers", async () => {
    const small = await createTestApp({ DATABASE_POOL_SIZE: '1' });
    try {
      const res = await small.http
        .get(`/v1/spaces/${space.id}/content/pages?computed=false`)
        .set(...org.admin.auth)
        .buffer(true)
        .parse((response, done) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => done(null, text));
        })
        .timeout(20_000)
        .expect(200);
      const { pages } = JSON.parse(await expected(revisions[1], { metadata: true, computed: false })) as { pages: unknown };
      expect(res.body).toBe(JSON.stringify({ pages }));
    } finally {
      await small.close();
    }
  }, 60_000);
});
