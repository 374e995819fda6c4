import { RevisionLifecycleService } from '../../src/modules/content/revision-lifecycle.service';
import { documentPage, DraftPage, RevisionWriter, sha256 } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * A write of many new bodies stores them before its revision's transaction (on connections of their
 * own) and only references them in it: what a failure leaves, and how document GC keeps its hands off.
 */
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
