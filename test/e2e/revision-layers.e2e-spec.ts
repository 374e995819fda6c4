import { EntityManager } from 'typeorm';
import { LinksRepository } from '../../src/modules/content/links/links.repository';
import type { RevisionDelta } from '../../src/modules/content/revision-delta';
import { RevisionDeltaWriter } from '../../src/modules/content/revision-delta-writer';
import { documentPage, DraftFile, DraftPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { Actor, createOrganization, OrgFixture } from '../support/builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
// A small bound, so that a compaction takes tens of pages: a layer stores at most max(20, 10% of its base's pages) page rows.
const MIN_ROWS = 20;

/**
 * Revisions written as layers over a full base (issue 12): what a layer stores follows the change,
 * and everything read through the views is what the same content written full reads back.
 */
describe('revision layers', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ REVISION_LAYER_MIN_ROWS: String(MIN_ROWS) });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body?: object) =>
      t.http
        .post(path)
        .set(...actor.auth)
        .send(body),
  });
  const admin = () => as(org.admin);
  const tx = <T>(work: (em: EntityManager) => Promise<T>) => t.dataSource.transaction(work);

  const stored = async (revisionId: string) => {
    const [row]: { base_id: string | null; pages: number; tombstones: number; links: number }[] = await t.dataSource.query(
      `SELECT r.base_id,
              (SELECT count(*)::int FROM revision_page_rows p WHERE p.revision_id = r.id) AS pages,
              (SELECT count(*)::int FROM revision_page_rows p WHERE p.revision_id = r.id AND p.deleted) AS tombstones,
              (SELECT count(*)::int FROM revision_link_rows l WHERE l.revision_id = r.id) AS links
         FROM revisions r WHERE r.id = $1`,
      [revisionId],
    );
    return row;
  };

  /** The same content as `revisionId` (its resolved pages and files), written full by `RevisionWriter`: paths and links derived again from scratch. */
  async function writtenFull(spaceId: string, revisionId: string): Promise<string> {
    const pages: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_pages WHERE revision_id = $1 ORDER BY page_id`, [revisionId]);
    const files: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_files WHERE revision_id = $1 ORDER BY file_id`, [revisionId]);
    const revision = await tx((em) =>
      t.app.get(RevisionWriter).write(
        {
          spaceId,
          parents: [revisionId],
          type: 'edits',
          createdBy: null,
          pages: pages.map((row) =>
            documentPage({
              pageId: row.page_id as string,
              parentId: row.parent_id as string | null,
              position: row.position as number,
              title: row.title as string,
              slug: row.slug as string,
              documentId: row.document_id as string | null,
              createdAt: row.created_at as Date,
              updatedAt: row.updated_at as Date,
            }),
          ),
          files: files.map((row) => ({
            fileId: row.file_id as string,
            name: row.name as string,
            contentType: row.content_type as string,
            size: Number(row.size),
            width: row.width as number | null,
            height: row.height as number | null,
            blobId: row.blob_id as string,
            createdAt: row.created_at as Date,
          })),
        },
        em,
      ),
    );
    return revision.id;
  }

  /** What the API and the link rows say of a revision, without its own id. */
  async function readBack(spaceId: string, revisionId: string) {
    const content = await admin().get(`/v1/spaces/${spaceId}/revisions/${revisionId}?metadata=false`).expect(200);
    const links: { target_key: string; status: string; target: object; pages: string[] }[] = await t.dataSource.query(
      `SELECT target_key, status, target, pages FROM revision_links WHERE revision_id = $1 ORDER BY target_key`,
      [revisionId],
    );
    const { id: _id, parents: _parents, createdAt: _createdAt, urls: _urls, type: _type, ...rest } = content.body;
    // A delta appends the pages a link gains, and a path link keeps the href of the page that wrote it
    // first, where a full write takes both in tree order: compared as sets, and without that href.
    return {
      // (The active revision's pages have the space's urls, another revision's pages urls under /~/revisions/.)
      content: JSON.parse(JSON.stringify(rest).replaceAll(`/~/revisions/${revisionId}`, '').replaceAll(revisionId, 'REV')),
      links: links.map((link) => ({ ...link, target: link.target_key.startsWith('path:') ? null : link.target, pages: [...link.pages].sort() })),
    };
  }
  const expectSameAsFull = async (spaceId: string, revisionId: string) =>
    expect(await readBack(spaceId, revisionId)).toEqual(await readBack(spaceId, await writtenFull(spaceId, revisionId)));

  const body = (group: number, i: number) =>
    `Page ${group}.${i}: [next](./doc-${i + 1}.md), [home](/pages/d0_0), [over](../group-1/doc-1.md), ![logo](/files/f1), [out](https://example.com/${group}).`;

  /** A full revision of 3 groups of 10 documents (33 pages) and one file. */
  async function base(spaceId: string): Promise<string> {
    const pages: DraftPage[] = [];
    for (let group = 0; group < 3; group++) {
      pages.push(documentPage({ pageId: `g${group}`, parentId: null, position: group, title: `Group ${group}`, slug: `group-${group}`, markdown: '' }));
      for (let i = 0; i < 10; i++) {
        pages.push(
          documentPage({
            pageId: `d${group}_${i}`,
            parentId: `g${group}`,
            position: i,
            title: `Doc ${group}.${i}`,
            slug: `doc-${i}`,
            markdown: body(group, i),
          }),
        );
      }
    }
    const files: DraftFile[] = [{ fileId: 'f1', name: 'logo.png', contentType: 'image/png', size: PNG.length, width: 1, height: 1, data: PNG }];
    return (await tx((em) => t.app.get(RevisionWriter).write({ spaceId, parents: [], type: 'edits', createdBy: null, pages, files }, em))).id;
  }

  const page = async (spaceId: string, revisionId: string, pageId: string): Promise<DraftPage> => {
    const [row]: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_pages WHERE revision_id = $1 AND page_id = $2`, [
      revisionId,
      pageId,
    ]);
    return documentPage({
      pageId,
      parentId: row.parent_id as string | null,
      position: row.position as number,
      title: row.title as string,
      slug: row.slug as string,
      documentId: row.document_id as string | null,
    });
  };
  const delta = (spaceId: string, baseId: string, change: Partial<RevisionDelta>) =>
    tx((em) =>
      t.app
        .get(RevisionDeltaWriter)
        .write({ spaceId, base: baseId, parents: [baseId], type: 'edits', createdBy: null, pages: [], removed: [], files: [], ...change }, em),
    );

  it('stores only what changed, over the full base, and reads back as the same content written full', async () => {
    const space = await createSpace(t, org);
    const full = await base(space.id);
    expect(await stored(full)).toEqual({ base_id: null, pages: 33, tombstones: 0, links: expect.any(Number) });

    // A body changed, a page inserted, a linked page removed, a file added.
    const a = await delta(space.id, full, {
      pages: [
        { ...(await page(space.id, full, 'd0_1')), markdown: 'Now [five](./doc-5.md), [two](/files/f2) and [gone](../group-2/doc-9.md).' },
        documentPage({ pageId: 'n1', parentId: 'g1', position: 10, title: 'New', slug: 'new', markdown: 'Back to [two](./doc-2.md) and [new](./new.md).' }),
      ],
      removed: ['d2_9'],
      files: [{ fileId: 'f2', name: 'two.png', contentType: 'image/png', size: PNG.length, width: 1, height: 1, data: PNG }],
    });
    expect(a.stored.layer).toBe(true);
    const layerA = await stored(a.revision.id);
    expect(layerA).toMatchObject({ base_id: full, pages: 3, tombstones: 1 });
    // Links: only the keys whose pages or status changed (not the base's ~70).
    expect(layerA.links).toBeLessThan(15);
    await expectSameAsFull(space.id, a.revision.id);

    // The tombstoned page is gone from pages, paths and links.
    await admin().get(`/v1/spaces/${space.id}/revisions/${a.revision.id}/page/d2_9`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/revisions/${a.revision.id}/path/group-2/doc-9`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/revisions/${full}/path/group-2/doc-9`).expect(200);
    const linking: unknown[] = await t.dataSource.query(`SELECT 1 FROM revision_links WHERE revision_id = $1 AND 'd2_9' = ANY(pages)`, [a.revision.id]);
    expect(linking).toEqual([]);
    // Backlinks of the logo (the route's query): every document but the changed d0_1 and the removed d2_9.
    const logo = await t.app.get(LinksRepository).backlinks(a.revision.id, 'file:f1', { limit: 100 });
    expect(logo.items.map((p) => p.pageId).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `d${Math.floor(i / 10)}_${i % 10}`)
        .filter((id) => id !== 'd0_1' && id !== 'd2_9')
        .sort(),
    );
    const [toGone]: { status: string }[] = await t.dataSource.query(
      `SELECT status FROM revision_links WHERE revision_id = $1 AND target_key = 'path:group-2/doc-9'`,
      [a.revision.id],
    );
    expect(toGone.status).toBe('broken');

    // On top of the layer: a group moved (its pages' paths change), a page renamed (links to its old path break).
    const b = await delta(space.id, a.revision.id, {
      pages: [
        { ...(await page(space.id, a.revision.id, 'g0')), parentId: 'g1', position: 11 },
        { ...(await page(space.id, a.revision.id, 'd1_2')), slug: 'doc-two' },
      ],
    });
    const layerB = await stored(b.revision.id);
    // Depth 1: the full base stays the base; the layer carries layer A's 3 rows, the 2 changed pages and the 10 moved below g0 (d0_1 among them).
    expect(layerB).toMatchObject({ base_id: full, pages: 14, tombstones: 1 });
    expect(b.delta.changed.sort()).toEqual(['d1_2', 'g0', ...Array.from({ length: 10 }, (_, i) => `d0_${i}`)].sort());
    const moved = await admin().get(`/v1/spaces/${space.id}/revisions/${b.revision.id}/path/group-1/group-0/doc-3`).expect(200);
    expect(moved.body.id).toBe('d0_3');
    await admin().get(`/v1/spaces/${space.id}/revisions/${b.revision.id}/path/group-0/doc-3`).expect(404);
    await expectSameAsFull(space.id, b.revision.id);

    // A cycle and a duplicate sibling slug are refused, and write nothing.
    await expect(delta(space.id, b.revision.id, { pages: [{ ...(await page(space.id, b.revision.id, 'g1')), parentId: 'd0_3' }] })).rejects.toThrow(/cycle/);
    await expect(delta(space.id, b.revision.id, { pages: [{ ...(await page(space.id, b.revision.id, 'd1_3')), slug: 'doc-4' }] })).rejects.toThrow(/slug/);

    // Past the bound (max(20, 10% of 32 pages)), the revision is written full.
    const edits = await Promise.all(
      Array.from({ length: 10 }, (_, i) => [`d1_${i}`, `d2_${i}`])
        .flat()
        .filter((id) => id !== 'd2_9')
        .map(async (id) => ({ ...(await page(space.id, b.revision.id, id)), markdown: `Edited ${id}: [home](/pages/d0_0).` })),
    );
    const c = await delta(space.id, b.revision.id, { pages: edits });
    expect(c.stored.layer).toBe(false);
    expect(await stored(c.revision.id)).toMatchObject({ base_id: null, pages: 33, tombstones: 0 });
    await expectSameAsFull(space.id, c.revision.id);
    // A layer over the compacted revision is small again.
    const d = await delta(space.id, c.revision.id, { pages: [{ ...(await page(space.id, c.revision.id, 'd1_1')), title: 'Retitled' }] });
    expect(await stored(d.revision.id)).toMatchObject({ base_id: c.revision.id, pages: 1 });

    // A full revision a layer uses cannot be deleted on its own; the space's purge removes them together.
    await expect(t.dataSource.query(`DELETE FROM revisions WHERE id = $1`, [full])).rejects.toThrow(/foreign key/);
    await t.dataSource.query(`DELETE FROM spaces WHERE id = $1`, [space.id]);
    expect(await t.dataSource.query(`SELECT 1 FROM revisions WHERE space_id = $1`, [space.id])).toEqual([]);
  });

  it('a merge of a small change request into a larger space writes a layer; the removed page is gone from pages, paths, links and backlinks', async () => {
    const space = await createSpace(t, org);
    const cr = async () => {
      const res = await admin().post(`/v1/spaces/${space.id}/change-requests`, { subject: 'edits' }).expect(201);
      return `/v1/spaces/${space.id}/change-requests/${res.body.id}`;
    };
    const first = await cr();
    const inserts = Array.from({ length: 40 }, (_, i) => ({
      operation: 'insert_page',
      title: `Page ${i}`,
      slug: `page-${i}`,
      document: { markdown: i === 39 ? 'The last page.' : `Page ${i}, see [the last](./page-39.md).` },
    }));
    await admin()
      .post(`${first}/content`, { changes: inserts.slice(0, 20) })
      .expect(200);
    await admin()
      .post(`${first}/content`, { changes: inserts.slice(20) })
      .expect(200);
    await admin().post(`${first}/merge`).expect(200);
    const tree = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    const ids: Record<string, string> = Object.fromEntries(tree.body.pages.map((p: { slug: string; id: string }) => [p.slug, p.id]));
    const main = (await admin().get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    expect((await stored(main)).pages).toBe(40);

    const second = await cr();
    await admin()
      .post(`${second}/content`, {
        changes: [
          { operation: 'update_page', page: ids['page-1'], document: { markdown: 'Edited, no links.' } },
          // The last of its siblings: removing the first would renumber every sibling's position (all rows changed).
          { operation: 'delete_page', page: ids['page-39'] },
        ],
      })
      .expect(200);
    await admin().post(`${second}/merge`).expect(200);
    const merged = (await admin().get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    expect(await stored(merged)).toMatchObject({ base_id: main, pages: 2, tombstones: 1 });

    await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-39']}`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/content/path/page-39`).expect(404);
    expect((await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-1']}`).expect(200)).body.markdown).toBe('Edited, no links.');
    const links = await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-2']}/links`).expect(200);
    expect(links.body.items.map((link: { status: string }) => link.status)).toEqual(['broken']);
    const pages = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    expect(pages.body.pages).toHaveLength(39);
    const broken = (await admin().get(`/v1/spaces/${space.id}/links?status=broken`).expect(200)).body.items;
    // Pages 0–19 were written before page 39 existed (their relative link stayed a path), 20–38 after (a page ref): both broken now.
    expect(broken.map((link: { targetReference: { kind: string } }) => link.targetReference.kind)).toEqual(['url', 'url']);
    expect(await stored(merged)).toMatchObject({ links: 2 });
    await expectSameAsFull(space.id, merged);
  });
});
