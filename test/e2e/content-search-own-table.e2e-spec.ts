import { documentPage, DraftPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SearchIndexWritesRepository } from '../../src/modules/space-writes/search-index-writes.repository';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { SearchTablesJob } from '../../src/modules/space-writes/search-tables.job';
import { createOrganization, OrgFixture } from '../support/builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/*
 * Search rows of a large rebuild live in a table of the space's own (SEARCH_TABLE_AFTER pages or more).
 * The search suites run again here unchanged, with the threshold at one page, so every space they
 * index with content has its own table; then the swap itself: atomic, rolled back with its write,
 * incremental updates, and the retired tables dropped.
 */
jest.mock('../support/test-app', () => {
  const actual = jest.requireActual('../support/test-app');
  return {
    ...actual,
    createTestApp: (env: Record<string, string> = {}, ...rest: unknown[]) => actual.createTestApp({ SEARCH_TABLE_AFTER: '1', ...env }, ...rest),
  };
});

require('./content-search.e2e-spec');

describe('search rows in a table of the space own (SEARCH_TABLE_AFTER)', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const admin = {
    get: (path: string) => t.http.get(path).set(...org.admin.auth),
    post: (path: string, body?: object) =>
      t.http
        .post(path)
        .set(...org.admin.auth)
        .send(body),
  };
  const search = async (spaceId: string, query: string) =>
    (await admin.get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`).expect(200)).body as {
      items: { id: string; title: string }[];
      count: number;
    };
  const tableOf = async (spaceId: string): Promise<string | undefined> =>
    (await t.dataSource.query(`SELECT table_name FROM search_tables WHERE space_id = $1`, [spaceId]))[0]?.table_name;
  const tableExists = async (name: string): Promise<boolean> => (await t.dataSource.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [`"${name}"`]))[0].e;
  const activeRevision = async (spaceId: string): Promise<string> => (await admin.get(`/v1/spaces/${spaceId}`).expect(200)).body.revision;
  const rowsOf = (table: string, spaceId: string) =>
    t.dataSource.query(
      `SELECT page_id, revision_id, title, path, description, ancestors, title_tsv::text AS title_tsv, tsv::text AS tsv FROM "${table}" WHERE space_id = $1 ORDER BY page_id`,
      [spaceId],
    );

  /** A space whose main holds `pages`, written through a change request and its merge. */
  async function spaceWith(pages: { title: string; markdown: string }[]): Promise<{ id: string; pages: Record<string, string> }> {
    const space = await createSpace(t, org);
    const cr = await changeRequest(space.id);
    await admin
      .post(`${cr}/content`, { changes: pages.map((page) => ({ operation: 'insert_page', title: page.title, document: { markdown: page.markdown } })) })
      .expect(200);
    await admin.post(`${cr}/merge`).expect(200);
    // A merge is written as a delta, which updates the rows where they are: a rebuild (what a large write does) moves them.
    const revision = await activeRevision(space.id);
    await t.dataSource.transaction((em) => t.app.get(SearchIndexWritesRepository).rebuild(space.id, revision, em));
    const tree = await admin.get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    return { id: space.id, pages: Object.fromEntries(tree.body.pages.map((page: { title: string; id: string }) => [page.title, page.id])) };
  }
  async function changeRequest(spaceId: string): Promise<string> {
    const res = await admin.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return `/v1/spaces/${spaceId}/change-requests/${res.body.id}`;
  }

  it('indexed the imported spaces of the suites above in tables of their own', async () => {
    const [{ own, shared }] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM search_tables) AS own,
              (SELECT count(*)::int FROM search_pages WHERE space_id IN (SELECT space_id FROM search_tables)) AS shared`,
    );
    expect(own).toBeGreaterThanOrEqual(2);
    expect(shared).toBe(0);
  });

  it('keeps the rows in the space table, indexed and analyzed, none in search_pages', async () => {
    const space = await spaceWith([
      { title: 'Alpha', markdown: 'wombatword here' },
      { title: 'Bravo', markdown: 'nothing' },
    ]);
    const table = (await tableOf(space.id)) as string;
    expect(table).toMatch(/^search_pages_[0-9a-z]{26}$/);
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM search_pages WHERE space_id = $1`, [space.id])).toEqual([{ n: 0 }]);
    expect(await rowsOf(table, space.id)).toHaveLength(2);
    const indexes: { indexdef: string }[] = await t.dataSource.query(`SELECT indexdef FROM pg_indexes WHERE tablename = $1`, [table]);
    const definitions = indexes.map((index) => index.indexdef.replace(/^.* USING /, ''));
    expect(definitions.sort()).toEqual(['btree (space_id, page_id)', 'gin (title_tsv)', 'gin (tsv)']);
    const [{ analyzed }] = await t.dataSource.query(`SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = $1`, [table]);
    expect(analyzed).toBe(true);
    expect((await search(space.id, 'wombatword')).items.map((item) => item.id)).toEqual([space.pages.Alpha]);
  });

  it('swaps atomically: searches see the old rows until the rebuild commits, nothing of a rolled back one', async () => {
    const space = await spaceWith([{ title: 'Alpha', markdown: 'koalaword' }]);
    const old = (await tableOf(space.id)) as string;
    const revision = await activeRevision(space.id);
    const rebuild = t.app.get(SearchIndexWritesRepository);

    // Rolled back: the new table goes with the transaction.
    const failed = t.dataSource.createQueryRunner();
    await failed.startTransaction();
    await rebuild.rebuild(space.id, revision, failed.manager);
    const [{ table_name: abandoned }] = await failed.query(`SELECT table_name FROM search_tables WHERE space_id = $1`, [space.id]);
    expect(abandoned).not.toBe(old);
    // Meanwhile searches read the committed table, without waiting for the write.
    expect((await search(space.id, 'koalaword')).count).toBe(1);
    await failed.rollbackTransaction();
    await failed.release();
    expect(await tableOf(space.id)).toBe(old);
    expect(await tableExists(abandoned)).toBe(false);

    // Committed: the next searches read the new table; the retired one is dropped by the job's sweep.
    const runner = t.dataSource.createQueryRunner();
    await runner.startTransaction();
    await rebuild.rebuild(space.id, revision, runner.manager);
    expect(await tableOf(space.id)).toBe(old);
    await runner.commitTransaction();
    await runner.release();
    const fresh = (await tableOf(space.id)) as string;
    expect(fresh).not.toBe(old);
    expect((await search(space.id, 'koalaword')).count).toBe(1);
    expect(await t.app.get(SearchTablesJob).dropRetired()).toContain(old);
    expect(await tableExists(old)).toBe(false);
    expect(await tableExists(fresh)).toBe(true);
    expect((await search(space.id, 'koalaword')).count).toBe(1);
  });

  it('follows a merge written as a delta in the space table, with the rows a rebuild writes', async () => {
    const space = await spaceWith([
      { title: 'Alpha', markdown: 'alpha body' },
      { title: 'Charlie', markdown: 'zebraword' },
    ]);
    const table = (await tableOf(space.id)) as string;
    const cr = await changeRequest(space.id);
    await admin
      .post(`${cr}/content`, {
        changes: [
          { operation: 'insert_page', title: 'Bravo', document: { markdown: 'quokkaword' } },
          { operation: 'delete_page', page: space.pages.Charlie },
        ],
      })
      .expect(200);
    await admin.post(`${cr}/merge`).expect(200);
    // The delta was applied in place (same table), and search follows it.
    expect(await tableOf(space.id)).toBe(table);
    expect((await search(space.id, 'quokkaword')).items.map((item) => item.title)).toEqual(['Bravo']);
    expect((await search(space.id, 'zebraword')).items).toEqual([]);
    const incremental = (await rowsOf(table, space.id)).map(({ revision_id: _revision, ...row }: Record<string, unknown>) => row);
    const revision = await activeRevision(space.id);
    await t.dataSource.transaction((em) => t.app.get(SearchIndexWritesRepository).rebuild(space.id, revision, em));
    const rebuilt = (await rowsOf((await tableOf(space.id)) as string, space.id)).map(({ revision_id: _revision, ...row }: Record<string, unknown>) => row);
    expect(incremental).toEqual(rebuilt);
  });

  it('moves a space back to search_pages when a rebuild falls below the threshold, and drops tables of deleted spaces', async () => {
    const space = await spaceWith([{ title: 'Alpha', markdown: 'ibexword' }]);
    const table = (await tableOf(space.id)) as string;
    // An empty revision is below any threshold: its rows (none) go to search_pages and the table is retired.
    const empty = await createSpace(t, org);
    await t.dataSource.transaction((em) => t.app.get(SearchIndexWritesRepository).rebuild(space.id, empty.revisionId, em));
    expect(await tableOf(space.id)).toBeUndefined();
    expect((await search(space.id, 'ibexword')).count).toBe(0);
    expect(await t.app.get(SearchTablesJob).dropRetired()).toContain(table);

    const other = await spaceWith([{ title: 'Alpha', markdown: 'ibexword' }]);
    const otherTable = (await tableOf(other.id)) as string;
    await t.dataSource.query(`DELETE FROM spaces WHERE id = $1`, [other.id]);
    expect(await t.app.get(SearchTablesJob).dropRetired()).toEqual([otherTable]);
    expect(await tableExists(otherTable)).toBe(false);
  });

  describe('a large write (bodies stored first): the table is built apart while the tree is written', () => {
    // Above the writer's pre-store threshold (2000 new bodies), which is when the table is built apart.
    const COUNT = 2200;
    const draftPages = (salt: string): DraftPage[] =>
      Array.from({ length: COUNT }, (_, i) =>
        documentPage({
          pageId: `p${i}`,
          parentId: i < 40 ? null : `p${i % 40}`,
          position: i,
          title: `Page ${i} ${salt}`,
          slug: `page-${i}`,
          description: i % 3 === 0 ? `about ${i}` : null,
          noIndex: i === 5,
          markdown: `Body ${i} of ${salt} narwhal${i}\n\n## Setup\n\nSteps.\n`,
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
    const unnamed = async (): Promise<string[]> =>
      (
        await t.dataSource.query(
          `SELECT relname FROM pg_class WHERE relkind = 'r' AND relname ~ '^search_pages_' AND relname NOT IN (SELECT table_name FROM search_tables)`,
        )
      ).map((row: { relname: string }) => row.relname);

    it('writes the rows a rebuild in the transaction writes, and the sweep leaves the table alone until the write commits', async () => {
      await t.app.get(SearchTablesJob).dropRetired();
      const space = await createSpace(t, org);
      let apart: string[] = [];
      const revision = await write(space.id, draftPages('apart'), async () => {
        // The write holds its transaction open: its table is built (committed, not named yet); the sweep skips it.
        for (let i = 0; i < 200 && apart.length === 0; i++) {
          apart = await unnamed();
          if (apart.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(apart).toHaveLength(1);
        expect(await t.app.get(SearchTablesJob).dropRetired()).toEqual([]);
        expect(await tableExists(apart[0])).toBe(true);
      });
      expect(await tableOf(space.id)).toBe(apart[0]);
      const built = await rowsOf(apart[0], space.id);
      expect(built).toHaveLength(COUNT - 1);
      expect((await search(space.id, 'narwhal17')).count).toBe(1);
      await t.dataSource.transaction((em) => t.app.get(SearchIndexWritesRepository).rebuild(space.id, revision.id, em));
      expect(built).toEqual(await rowsOf((await tableOf(space.id)) as string, space.id));
    });

    it('drops the table of a write whose activation fails after it was built, and the old rows stay', async () => {
      const space = await createSpace(t, org);
      await write(space.id, draftPages('first'));
      const table = await tableOf(space.id);
      const before = await unnamed();
      let failing = true;
      // A listener of activated revisions fails (it runs after the table was swapped in, in the same transaction).
      t.app.get(SpaceUnitOfWork).onRevisionActivated(async ({ spaceId }) => {
        if (failing && spaceId === space.id) throw new Error('the write fails after its search table was built');
      });
      let built: string[] = [];
      await expect(
        write(space.id, draftPages('failed'), async () => {
          for (let i = 0; i < 200 && (await unnamed()).length === before.length; i++) await new Promise((resolve) => setTimeout(resolve, 100));
          built = await unnamed();
        }),
      ).rejects.toThrow('the write fails');
      failing = false;
      expect(built.length).toBe(before.length + 1);
      expect(await unnamed()).toEqual(before);
      expect(await tableOf(space.id)).toBe(table);
      expect((await search(space.id, 'narwhal17')).items.map((item) => item.title)).toEqual(['Page 17 first']);
      expect((await search(space.id, 'failed')).count).toBe(0);
    });

    it('leaves the table of a write that fails before handing its revision on to the sweep, which drops it once the write has ended', async () => {
      const space = await createSpace(t, org);
      await write(space.id, draftPages('first'));
      const before = await unnamed();
      let built: string[] = [];
      await expect(
        write(space.id, draftPages('failed'), async () => {
          for (let i = 0; i < 200 && (await unnamed()).length === before.length; i++) await new Promise((resolve) => setTimeout(resolve, 100));
          built = await unnamed();
          throw new Error('the write fails after its search table was built');
        }),
      ).rejects.toThrow('the write fails');
      const orphan = built.filter((name) => !before.includes(name));
      expect(orphan).toHaveLength(1);
      expect(await t.app.get(SearchTablesJob).dropRetired()).toContain(orphan[0]);
      expect(await tableExists(orphan[0])).toBe(false);
      expect((await search(space.id, 'failed')).count).toBe(0);
    });
  });
});
