import { RevisionLifecycleService } from '../../src/modules/content/revision-lifecycle.service';
import { documentPage, DraftPage, RevisionWriter, sha256 } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { EntityManager } from 'typeorm';
import { PageTreeKeys1800000092000 } from '../../migrations/1800000092000-page-tree-keys';
import type { SpaceAccess } from '../../src/modules/access/space-access.service';
import { presentRevision, type RevisionPageJson } from '../../src/modules/content/content.presenter';
import { ContentService } from '../../src/modules/content/content.service';
import type { RevisionDelta } from '../../src/modules/content/revision-delta';
import { RevisionDeltaWriter } from '../../src/modules/content/revision-delta-writer';
import { createTestDatabase, TestDatabase } from '../support/database';
import { expectContract } from '../support/contract';

/**
 * A write of many new bodies stores them before its revision's transaction (on connections of their
 * own) and only references them in it: what a failure leaves, and how document GC keeps its hands off.
 */
/** `pages` moved last in the revision and in every page, as the stream writes them. */
function pagesLast<T extends object>(json: T): T {
  const { pages, ...rest } = json as T & { pages?: RevisionPageJson[] };
  return (pages === undefined ? rest : { ...rest, pages: pages.map((page) => pagesLast(page)) }) as T;
}

/** A GET whose body is kept as the text the server streamed, to compare bytes as sent. */
const streamedText = (app: TestApp, path: string, auth: OrgFixture['admin']['auth']) =>
  app.http
    .get(path)
    .set(...auth)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });

describe('bulk revision writes (bodies stored before the revision)', () => {
  let t: TestApp;
  let org: OrgFixture;
  // Above the writer's pre-store threshold (2000 new bodies).
  const COUNT = 2500;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const draftPages = (salt: string): DraftPage[] =>
    Array.from({ length: COUNT }, (_, i) =>
      documentPage({
        pageId: `p${i}`,
        parentId: i < 50 ? null : `p${i % 50}`,
        position: i,
        title: `Page ${i}`,
        slug: `page-${i}`,
        markdown: `Body ${i} of ${salt} quokka${i}\n\n## Setup\n\nSee [the next page](/page-${(i + 1) % 50}).\n`,
      }),
    );
  const write = (spaceId: string, pages: DraftPage[], after?: () => Promise<void>) =>
    t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', ({ commitRevision }) =>
      commitRevision(async (base, em) => {
        const revision = await t.app.get(RevisionWriter).write({ spaceId, parents: [base], type: 'edits', createdBy: null, pages, files: [] }, em);
        await after?.();
        return revision;
      }),
    );
  const stored = async (ids: string[]) => (await t.dataSource.query(`SELECT count(*)::int AS n FROM documents WHERE id = ANY($1)`, [ids]))[0].n as number;
  const gc = () => t.dataSource.transaction((em) => t.app.get(RevisionLifecycleService).collectGarbage(em));

  it('writes the revision, its bodies with their sections, links and search rows', async () => {
    const space = await createSpace(t, org);
    const pages = draftPages('written');
    // Characters COPY's text format escapes, and JSON values that are strings.
    Object.assign(pages[7], { title: 'Tab\there, back\\slash\nnew line', description: '\\N', variables: { note: 'a\tb' } });
    const revision = await write(space.id, pages);
    const [odd] = await t.dataSource.query(`SELECT title, description, variables FROM revision_pages WHERE revision_id = $1 AND page_id = 'p7'`, [revision.id]);
    expect(odd).toEqual({ title: 'Tab\there, back\\slash\nnew line', description: '\\N', variables: { note: 'a\tb' } });
    const [{ active }] = await t.dataSource.query(`SELECT revision_id AS active FROM spaces WHERE id = $1`, [space.id]);
    expect(active).toBe(revision.id);
    const [counts] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM revision_pages WHERE revision_id = $1) AS pages,
              (SELECT count(*)::int FROM revision_pages p JOIN documents d ON d.id = p.document_id WHERE p.revision_id = $1) AS bodies,
              (SELECT count(*)::int FROM document_sections s JOIN revision_pages p ON p.document_id = s.document_id WHERE p.revision_id = $1) AS sections,
              (SELECT count(*)::int FROM revision_links WHERE revision_id = $1) AS links,
              (SELECT count(*)::int FROM search_pages WHERE space_id = $2) AS search`,
      [revision.id, space.id],
    );
    // Two sections per body (the intro and "Setup"); 50 distinct link targets.
    expect(counts).toEqual({ pages: COUNT, bodies: COUNT, sections: 2 * COUNT, links: 50, search: COUNT });
    const found = await t.http
      .get(`/v1/spaces/${space.id}/search?query=quokka1234`)
      .set(...org.admin.auth)
      .expect(200);
    expect(found.body.items.map((item: { id: string }) => item.id)).toEqual(['p1234']);
  });

  it('a write that fails after its bodies were stored leaves no revision and no rows; GC then takes the bodies', async () => {
    const space = await createSpace(t, org);
    const before = await t.dataSource.query(`SELECT id FROM revisions WHERE space_id = $1`, [space.id]);
    const pages = draftPages('failed');
    await expect(
      write(space.id, pages, () => {
        throw new Error('the transaction fails after the revision was written');
      }),
    ).rejects.toThrow('the transaction fails');

    expect(await t.dataSource.query(`SELECT id FROM revisions WHERE space_id = $1`, [space.id])).toEqual(before);
    const [{ active }] = await t.dataSource.query(`SELECT revision_id AS active FROM spaces WHERE id = $1`, [space.id]);
    expect(active).toBe(space.revisionId);
    const [rows] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM revision_pages p JOIN revisions r ON r.id = p.revision_id WHERE r.space_id = $1) AS pages,
              (SELECT count(*)::int FROM revision_links l JOIN revisions r ON r.id = l.revision_id WHERE r.space_id = $1) AS links,
              (SELECT count(*)::int FROM search_pages WHERE space_id = $1) AS search`,
      [space.id],
    );
    expect(rows).toEqual({ pages: 0, links: 0, search: 0 });
    // The bodies were committed on their own, unreferenced: invisible to reads, and garbage.
    const ids = pages.map((page) => page.documentId as string);
    expect(await stored(ids)).toBe(COUNT);
    await gc();
    expect(await stored(ids)).toBe(0);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM document_sections WHERE document_id = ANY($1)`, [ids]))[0].n).toBe(0);
  });

  it('GC waits for a write whose stored bodies its transaction has not referenced yet', async () => {
    const space = await createSpace(t, org);
    const pages = draftPages('concurrent');
    const ids = pages.map((page) => sha256(page.markdown as string));
    // Holds the write's transaction at its links (written while the bodies are stored), before it references any body.
    const blocker = t.dataSource.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    await blocker.query(`LOCK TABLE revision_link_rows IN SHARE ROW EXCLUSIVE MODE`);
    let written = false;
    const writing = write(space.id, pages).then((revision) => ((written = true), revision));
    try {
      for (let i = 0; (await stored(ids)) < COUNT; i++) {
        if (i > 300) throw new Error('the bodies were not stored');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      let collected = false;
      const collecting = gc().then((result) => ((collected = true), result));
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Without the lock, GC would have deleted the committed, still unreferenced bodies by now.
      expect(collected).toBe(false);
      expect(await stored(ids)).toBe(COUNT);
      await blocker.commitTransaction();
      const revision = await writing;
      await collecting;
      expect(written).toBe(true);
      expect(await stored(ids)).toBe(COUNT);
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM revision_pages WHERE revision_id = $1 AND document_id IS NOT NULL`, [
        revision.id,
      ]);
      expect(n).toBe(COUNT);
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
      await writing.catch(() => undefined);
    }
  });
});

/**
 * Each page row stores its place in the shown tree (`tree_key`), and GET /content reads in its
 * order. After every kind of change a layer can carry (an insert in the middle of siblings, a
 * subtree moved, siblings renumbered, a page turned into a link or a group below the top), the
 * keys order exactly the pages the recursive walk shows, at the walk's depths, and the streamed
 * body is the in-memory presenter's; the migration keys existing revisions, layers included.
 */
describe('tree keys', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  /** A base tree: three top pages, `a` with five children (each with two), a nested group, a link with a child, a top group. */
  function tree(): DraftPage[] {
    const pages: DraftPage[] = [
      documentPage({ pageId: 'a', parentId: null, position: 0, title: 'A', slug: 'a', markdown: 'A [c](/pages/c)' }),
      documentPage({ pageId: 'b', parentId: null, position: 1, title: 'B', slug: 'b', markdown: 'B' }),
      documentPage({ pageId: 'b0', parentId: 'b', position: 0, title: 'B0', slug: 'b0', markdown: 'B0 [a1](/pages/a1)' }),
      documentPage({ pageId: 'c', parentId: null, position: 2, title: 'C', slug: 'c', markdown: 'C' }),
      documentPage({ pageId: 'ng', parentId: 'c', position: 0, title: 'Nested group', slug: 'ng', kind: 'group' }),
      documentPage({ pageId: 'ng0', parentId: 'ng', position: 0, title: 'Under nested group', slug: 'ng0', markdown: 'x' }),
      documentPage({
        pageId: 'l',
        parentId: null,
        position: 3,
        title: 'Link',
        slug: null,
        kind: 'link',
        linkTarget: { kind: 'url', url: 'https://example.com' },
      }),
      documentPage({ pageId: 'l0', parentId: 'l', position: 0, title: 'Under link', slug: 'l0', markdown: 'y' }),
      documentPage({ pageId: 'g', parentId: null, position: 4, title: 'Group', slug: 'g', kind: 'group' }),
      documentPage({ pageId: 'g0', parentId: 'g', position: 0, title: 'In group', slug: 'g0', markdown: 'z' }),
    ];
    for (let i = 0; i < 5; i++) {
      pages.push(documentPage({ pageId: `a${i}`, parentId: 'a', position: i, title: `A${i}`, slug: `a${i}`, markdown: `A${i} [a](/pages/a)` }));
      for (let j = 0; j < 2; j++) {
        pages.push(documentPage({ pageId: `a${i}_${j}`, parentId: `a${i}`, position: j, title: `A${i}.${j}`, slug: `a${i}-${j}`, markdown: `A${i}.${j}` }));
      }
    }
    return pages;
  }

  async function writeFull(app: TestApp, spaceId: string, pages: DraftPage[]): Promise<string> {
    const revision = await app.app
      .get(SpaceUnitOfWork)
      .run(spaceId, org.admin.user, 'edit', ({ commitRevision }) =>
        commitRevision((parent, em) => app.app.get(RevisionWriter).write({ spaceId, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );
    return (revision as unknown as { id: string }).id;
  }

  const delta = (app: TestApp, spaceId: string, base: string, change: Partial<RevisionDelta>) =>
    app.dataSource.transaction((em: EntityManager) =>
      app.app
        .get(RevisionDeltaWriter)
        .write({ spaceId, base, parents: [base], type: 'edits', createdBy: null, pages: [], removed: [], files: [], ...change }, em),
    );

  const page = async (app: TestApp, revisionId: string, pageId: string): Promise<DraftPage> => {
    const [row]: Record<string, unknown>[] = await app.dataSource.query(`SELECT * FROM revision_pages WHERE revision_id = $1 AND page_id = $2`, [
      revisionId,
      pageId,
    ]);
    return documentPage({
      pageId,
      parentId: row.parent_id as string | null,
      position: row.position as number,
      title: row.title as string,
      slug: row.slug as string | null,
      kind: row.kind as DraftPage['kind'],
      linkTarget: row.link_target as DraftPage['linkTarget'],
      documentId: row.document_id as string | null,
    });
  };

  /** The shown pages and depths as the recursive walk (what GET /content read before keys) orders them. */
  const walked = (app: TestApp, revisionId: string): Promise<{ page_id: string; depth: number }[]> =>
    app.dataSource.query(
      `WITH RECURSIVE walk AS (
         SELECT p.page_id, p.kind, 0 AS depth, ARRAY[lpad(p.position::text, 10, '0') || p.page_id] AS sort
         FROM revision_pages p WHERE p.revision_id = $1 AND p.parent_id IS NULL
         UNION ALL
         SELECT c.page_id, c.kind, w.depth + 1, w.sort || (lpad(c.position::text, 10, '0') || c.page_id)
         FROM walk w JOIN revision_pages c ON c.revision_id = $1 AND c.parent_id = w.page_id
         WHERE w.kind <> 'link' AND c.kind <> 'group'
       )
       SELECT page_id, depth FROM walk ORDER BY sort COLLATE "C"`,
      [revisionId],
    );
  const keyed = (app: TestApp, revisionId: string): Promise<{ page_id: string; depth: number }[]> =>
    app.dataSource.query(
      `SELECT page_id, length(tree_key) - length(replace(tree_key, chr(1), '')) - 1 AS depth
         FROM revision_pages WHERE revision_id = $1 AND tree_key > '' ORDER BY tree_key`,
      [revisionId],
    );

  const streamed = (app: TestApp, path: string) => streamedText(app, path, org.admin.auth).expect(200);

  /** Keys order what the walk shows; the streamed revision is the in-memory presenter's, byte for byte. */
  async function expectShownInOrder(app: TestApp, spaceId: string, revisionId: string): Promise<string[]> {
    const walk = await walked(app, revisionId);
    expect(await keyed(app, revisionId)).toEqual(walk);
    const [row] = await app.dataSource.query('SELECT organization_id, revision_id FROM spaces WHERE id = $1', [spaceId]);
    const access = { space: { id: spaceId, organizationId: row.organization_id, revisionId: row.revision_id } } as unknown as SpaceAccess;
    const content = await app.app.get(ContentService).revision(access, revisionId, true);
    const res = await streamed(app, `/v1/spaces/${spaceId}/revisions/${revisionId}?metadata=false`);
    expect(res.body).toBe(JSON.stringify(pagesLast(presentRevision(content, { metadata: false }))));
    return walk.map((entry) => entry.page_id);
  }

  const baseOf = async (app: TestApp, revisionId: string): Promise<string | null> =>
    (await app.dataSource.query(`SELECT base_id FROM revisions WHERE id = $1`, [revisionId]))[0].base_id;

  it('a full write keys the tree as the walk orders it: links and groups below the top hide what is under them', async () => {
    const space = await createSpace(t, org);
    const full = await writeFull(t, space.id, tree());
    const shown = await expectShownInOrder(t, space.id, full);
    expect(shown).toEqual([
      'a',
      'a0',
      'a0_0',
      'a0_1',
      'a1',
      'a1_0',
      'a1_1',
      'a2',
      'a2_0',
      'a2_1',
      'a3',
      'a3_0',
      'a3_1',
      'a4',
      'a4_0',
      'a4_1',
      'b',
      'b0',
      'c',
      'l',
      'g',
      'g0',
    ]);
  });

  it('change requests merged as layers: an insert in the middle of siblings, a subtree moved, siblings renumbered by a delete', async () => {
    const space = await createSpace(t, org);
    await writeFull(t, space.id, tree());
    const admin = {
      post: (path: string, body?: object) =>
        t.http
          .post(path)
          .set(...org.admin.auth)
          .send(body),
    };
    const merge = async (changes: object[]): Promise<string> => {
      const cr = await admin.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'tree' }).expect(201);
      await admin.post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/content`, { changes }).expect(200);
      await admin.post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`).expect(200);
      const [row] = await t.dataSource.query('SELECT revision_id FROM spaces WHERE id = $1', [space.id]);
      expect(await baseOf(t, row.revision_id)).not.toBeNull();
      return row.revision_id;
    };

    // Between a1 and a2: a2…a4 move one place down, and their children with them.
    const inserted = await merge([{ operation: 'insert_page', into: 'a', at: 2, title: 'New', slug: 'new', document: { markdown: 'New' } }]);
    const afterInsert = await expectShownInOrder(t, space.id, inserted);
    const newId = afterInsert[afterInsert.indexOf('a1_1') + 1];
    expect(afterInsert.slice(afterInsert.indexOf('a1'), afterInsert.indexOf('a3'))).toEqual(['a1', 'a1_0', 'a1_1', newId, 'a2', 'a2_0', 'a2_1']);

    // a3 (with its children) to the top of c, before the nested group.
    const moved = await merge([{ operation: 'update_page', page: 'a3', into: 'c', at: 0 }]);
    const afterMove = await expectShownInOrder(t, space.id, moved);
    expect(afterMove.slice(afterMove.indexOf('c'), afterMove.indexOf('l'))).toEqual(['c', 'a3', 'a3_0', 'a3_1']);

    // The first child of a goes: every sibling after it is renumbered.
    const deleted = await merge([{ operation: 'delete_page', page: 'a0' }]);
    const afterDelete = await expectShownInOrder(t, space.id, deleted);
    expect(afterDelete.slice(0, 4)).toEqual(['a', 'a1', 'a1_0', 'a1_1']);
    expect(afterDelete).not.toContain('a0_0');
  });

  it('layers: a page turned into a link hides its subtree, a group moved below the top hides its own, moved back shows them', async () => {
    const space = await createSpace(t, org);
    const full = await writeFull(t, space.id, tree());
    const toLink = await delta(t, space.id, full, {
      pages: [{ ...(await page(t, full, 'a1')), kind: 'link', slug: null, documentId: null, linkTarget: { kind: 'url', url: 'https://example.com/a1' } }],
    });
    expect(toLink.stored.layer).toBe(true);
    const linkShown = await expectShownInOrder(t, space.id, toLink.revision.id);
    expect(linkShown).toContain('a1');
    expect(linkShown).not.toContain('a1_0');

    const groupDown = await delta(t, space.id, toLink.revision.id, { pages: [{ ...(await page(t, toLink.revision.id, 'g')), parentId: 'b', position: 1 }] });
    expect(groupDown.stored.layer).toBe(true);
    const downShown = await expectShownInOrder(t, space.id, groupDown.revision.id);
    expect(downShown).not.toContain('g');
    expect(downShown).not.toContain('g0');

    const groupUp = await delta(t, space.id, groupDown.revision.id, {
      pages: [
        { ...(await page(t, groupDown.revision.id, 'g')), parentId: null, position: 0 },
        { ...(await page(t, groupDown.revision.id, 'a1')), kind: 'document', slug: 'a1', linkTarget: null, markdown: 'A1 again' },
      ],
    });
    const upShown = await expectShownInOrder(t, space.id, groupUp.revision.id);
    expect(upShown.slice(0, 4)).toEqual(['a', 'a0', 'a0_0', 'a0_1']);
    expect(upShown.slice(upShown.indexOf('a1'), upShown.indexOf('a1') + 3)).toEqual(['a1', 'a1_0', 'a1_1']);
    // g (position 0) ties with a (position 0) at the top: by id.
    expect(upShown.slice(upShown.indexOf('g'), upShown.indexOf('g') + 2)).toEqual(['g', 'g0']);

    // Top pages reordered: the whole subtrees follow.
    const reordered = await delta(t, space.id, groupUp.revision.id, {
      pages: [
        { ...(await page(t, groupUp.revision.id, 'c')), position: 0 },
        { ...(await page(t, groupUp.revision.id, 'a')), position: 2 },
      ],
    });
    const reorderedShown = await expectShownInOrder(t, space.id, reordered.revision.id);
    expect(reorderedShown.indexOf('c')).toBeLessThan(reorderedShown.indexOf('a4_1'));
  });

  describe('migration', () => {
    let database: TestDatabase;
    let own: TestApp;

    beforeAll(async () => {
      database = await createTestDatabase();
      own = await createTestApp({}, undefined, () => database.url);
    });
    afterAll(async () => {
      await own?.close();
      await database?.drop();
    });

    it('keys existing full revisions and layers; a layer whose page moved among its siblings carries that page subtree', async () => {
      const ownOrg = await createOrganization(own);
      const space = await createSpace(own, ownOrg);
      const full = (
        await own.dataSource.transaction((em) =>
          own.app.get(RevisionWriter).write({ spaceId: space.id, parents: [], type: 'edits', createdBy: null, pages: tree(), files: [] }, em),
        )
      ).id;
      const layer = (await delta(own, space.id, full, { pages: [{ ...(await page(own, full, 'a1')), position: 9 }] })).revision.id;
      const written: { revision_id: string; page_id: string; tree_key: string }[] = await own.dataSource.query(
        `SELECT revision_id, page_id, tree_key FROM revision_page_rows ORDER BY revision_id, page_id`,
      );
      // As the writers before keys stored it: a1's new row alone (its children's rows stay the base's).
      await own.dataSource.query(`DELETE FROM revision_page_rows WHERE revision_id = $1 AND page_id <> 'a1'`, [layer]);

      const runner = own.dataSource.createQueryRunner();
      try {
        await runner.startTransaction();
        await new PageTreeKeys1800000092000().down(runner);
        expect(await runner.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'revision_page_rows' AND column_name = 'tree_key'`)).toEqual([]);
        await new PageTreeKeys1800000092000().up(runner);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }

      expect(await own.dataSource.query(`SELECT revision_id, page_id, tree_key FROM revision_page_rows ORDER BY revision_id, page_id`)).toEqual(written);
      for (const revisionId of [full, layer]) {
        expect(await keyed(own, revisionId)).toEqual(await walked(own, revisionId));
      }
      const shown = (await walked(own, layer)).map((row) => row.page_id);
      expect(shown.slice(shown.indexOf('a4_1') + 1, shown.indexOf('b'))).toEqual(['a1', 'a1_0', 'a1_1']);
    });
  });
});

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

  async function expected(revisionId: string, query: { metadata: boolean; computed: boolean }): Promise<string> {
    const content = await t.app.get(ContentService).revision(access, revisionId, query.computed);
    return JSON.stringify(pagesLast(presentRevision(content, { metadata: query.metadata })));
  }

  const get = (path: string) => streamedText(t, path, org.admin.auth);

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

  // A layer (its own rows over its full base) is read by merging two key-ordered scans, batch after batch from the
  // last key: an update past the first batch and a deletion (a tombstone) in it must come out as the view has them.
  it('streams a layer over the 615-page revision as the in-memory presenter, across batches', async () => {
    const cr = await t.http
      .post(`/v1/spaces/${space.id}/change-requests`)
      .set(...org.admin.auth)
      .send({ subject: 'layer' })
      .expect(201);
    await t.http
      .post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/content?compat=false`)
      .set(...org.admin.auth)
      .send({
        changes: [
          { operation: 'update_page', page: 'b550', title: 'Big 550, renamed in a layer' },
          { operation: 'delete_page', page: 'b3' },
        ],
      })
      .expect(200);
    await t.http
      .post(`/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`)
      .set(...org.admin.auth)
      .send({})
      .expect(200);
    const [{ revision_id: layer }] = await t.dataSource.query('SELECT revision_id FROM spaces WHERE id = $1', [space.id]);
    const [{ base_id: baseId }] = await t.dataSource.query('SELECT base_id FROM revisions WHERE id = $1', [layer]);
    expect(baseId).toBe(revisions[1]);
    const layerAccess = { space: { ...access.space, revisionId: layer } } as unknown as SpaceAccess;
    const content = await t.app.get(ContentService).revision(layerAccess, layer, true);
    const res = await get(`/v1/spaces/${space.id}/revisions/${layer}`).expect(200);
    expect(res.body).toBe(JSON.stringify(pagesLast(presentRevision(content, { metadata: true }))));
    const text = res.body as string;
    expect(text).toContain('"title":"Big 550, renamed in a layer"');
    expect(text).not.toContain('"id":"b3"');
    const pages = await get(`/v1/spaces/${space.id}/revisions/${layer}/pages`).expect(200);
    expect(JSON.parse(pages.body as string).pages).toEqual(JSON.parse(res.body as string).pages);
  }, 60_000);
});
