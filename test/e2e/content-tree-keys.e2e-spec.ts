import { EntityManager } from 'typeorm';
import { PageTreeKeys1800000092000 } from '../../migrations/1800000092000-page-tree-keys';
import type { SpaceAccess } from '../../src/modules/access/space-access.service';
import { presentRevision, type RevisionPageJson } from '../../src/modules/content/content.presenter';
import { ContentService } from '../../src/modules/content/content.service';
import type { RevisionDelta } from '../../src/modules/content/revision-delta';
import { RevisionDeltaWriter } from '../../src/modules/content/revision-delta-writer';
import { documentPage, DraftPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { createTestDatabase, TestDatabase } from '../support/database';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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

  /** `pages` moved last in every page, as the stream writes them. */
  function pagesLast<T extends object>(json: T): T {
    const { pages, ...rest } = json as T & { pages?: RevisionPageJson[] };
    return (pages === undefined ? rest : { ...rest, pages: pages.map((child) => pagesLast(child)) }) as T;
  }

  const streamed = (app: TestApp, path: string) =>
    app.http
      .get(path)
      .set(...org.admin.auth)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      })
      .expect(200);

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
