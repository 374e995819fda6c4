import { createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

type Change = {
  type: string;
  page?: { id: string; title: string; path?: string; type: string };
  file?: { name: string };
  parent?: object;
  attributes?: Record<string, unknown>;
};

const VARIANTS: Record<string, string> = {
  page_created: 'RevisionSemanticChangePageCreated',
  page_deleted: 'RevisionSemanticChangePageDeleted',
  page_moved: 'RevisionSemanticChangePageMoved',
  file_created: 'RevisionSemanticChangeFileCreated',
  file_edited: 'RevisionSemanticChangeFileEdited',
  file_deleted: 'RevisionSemanticChangeFileDeleted',
};
const EDIT_ATTRIBUTES: Record<string, string> = {
  document: 'RevisionPageDocumentChangeAttributes',
  group: 'RevisionPageGroupChangeAttributes',
  link: 'RevisionPageLinkChangeAttributes',
};

/**
 * The public `RevisionSemanticChanges`, each change checked against its own variant. The whole-body
 * check cannot pass for an edit that touches only attributes the variants share (a title: the
 * document, group and link attribute schemas all accept `{ title }`, and `oneOf` wants exactly one),
 * so an edit's attributes are checked against the variant of its page's type.
 */
function expectChanges(res: { body: { changes: Change[] } }, operationId: string): void {
  const body = res.body;
  const unambiguous = body.changes.every((change) => change.type !== 'page_edited');
  if (unambiguous) expectContract(res as never, operationId);
  for (const change of body.changes) {
    if (change.type === 'page_edited') {
      expect(Object.keys(change).sort()).toEqual(['attributes', 'page', 'type']);
      expectPublicSchema(change.page, 'ChangedRevisionPage');
      expectPublicSchema(change.attributes, EDIT_ATTRIBUTES[change.page?.type ?? 'document']);
    } else expectPublicSchema(change, VARIANTS[change.type]);
  }
}

/**
 * Semantic changes of change requests and revisions, over layers (the default bound: every revision
 * here is a layer over the space's first full revision) and over full revisions (a bound of one row:
 * every revision is written full, so the two are compared whole).
 */
describe.each([
  ['layers', {}],
  ['full revisions', { REVISION_LAYER_MIN_ROWS: '1' }],
])('semantic changes (%s)', (_name, env) => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp(env);
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const post = (path: string, body: object = {}) =>
    t.http
      .post(path)
      .set(...org.admin.auth)
      .send(body);
  const newChangeRequest = async (spaceId: string) =>
    `/v1/spaces/${spaceId}/change-requests/${(await post(`/v1/spaces/${spaceId}/change-requests`).expect(201)).body.id as string}`;
  const changes = (cr: string, list: object[]) => post(`${cr}/content`, { changes: list }).expect(200);

  /** A space whose main has Guide (with Install below it), Reference, Old (with Older below it) (link pages have no authoring operation: the unit test covers their attributes). */
  async function spaceWithPages() {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Guide', document: { markdown: 'guide' } },
      { operation: 'insert_page', title: 'Reference', document: { markdown: 'reference' } },
      { operation: 'insert_page', title: 'Old', document: { markdown: 'old' } },
    ]);
    await post(`${cr}/merge`).expect(200);
    const top = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[];
    const id = (title: string) => top.find((page) => page.title === title)?.id as string;
    const cr2 = await newChangeRequest(space.id);
    await changes(cr2, [
      { operation: 'insert_page', title: 'Install', into: id('Guide'), document: { markdown: 'install' } },
      { operation: 'insert_page', title: 'Older', into: id('Old'), document: { markdown: 'older' } },
    ]);
    await post(`${cr2}/merge`).expect(200);
    const all = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as {
      id: string;
      title: string;
      pages: { id: string; title: string }[];
    }[];
    const below = (parent: string) => all.find((page) => page.title === parent)?.pages[0].id as string;
    return { id: space.id, guide: id('Guide'), reference: id('Reference'), old: id('Old'), install: below('Guide'), older: below('Old') };
  }

  it('requires authentication, and answers 404 outside the organization or for an unknown change request or revision', async () => {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`), 401);
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/revisions/${space.revisionId}/changes`), 401);
    const outsider = await createUser(t);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`).set(...outsider.auth), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/change-requests/999999/changes`), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/nope/changes`), 404);
    const empty = await get(`${cr}/changes`).expect(200);
    expectContract(empty, 'getChangeRequestChanges');
    expect(empty.body).toEqual({ changes: [] });
  });

  it('reports pages created, edited, moved with their subtree, deleted with theirs, and files created', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.reference, title: 'API reference', emoji: '1f4d6', document: { markdown: 'new body' } },
      { operation: 'update_page', page: space.guide, into: space.reference },
      { operation: 'delete_page', page: space.old },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const res = await get(`${cr}/changes?limit=100`).expect(200);
    expectChanges(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    const of = (type: string, pageId?: string) => list.filter((c) => c.type === type && (pageId === undefined || c.page?.id === pageId));

    expect(of('page_created')).toEqual([{ type: 'page_created', page: { id: expect.any(String), type: 'document', title: 'Fresh', path: 'fresh' } }]);
    // The moved page only: Install, below it, keeps its parent.
    expect(of('page_moved')).toEqual([
      {
        type: 'page_moved',
        page: { id: space.guide, type: 'document', title: 'Guide', path: 'reference/guide' },
        parent: { after: { id: space.reference, type: 'document', title: 'API reference', path: 'reference' } },
      },
    ]);
    expect(of('page_moved', space.install)).toEqual([]);
    expect(of('page_edited', space.install)).toEqual([]);
    const edited = of('page_edited', space.reference)[0];
    expect(edited.attributes).toMatchObject({ title: { before: 'Reference', after: 'API reference' }, emoji: { after: '1f4d6' }, document: {} });
    expect(Object.keys(edited.attributes ?? {}).sort()).toEqual(['document', 'emoji', 'title']);
    // A deleted page takes its sub-pages with it: both are reported.
    expect(
      of('page_deleted')
        .map((c) => c.page?.id)
        .sort(),
    ).toEqual([space.old, space.older].sort());
    const files = of('file_created');
    expect(files).toHaveLength(1);
    expect(files[0].file).toMatchObject({ name: 'logo.png', contentType: 'image/png', downloadURL: expect.stringContaining('/download') });

    // The default limit is 10; `more` counts what was left out.
    const limited = await get(`${cr}/changes?limit=2`).expect(200);
    expect(limited.body.changes).toHaveLength(2);
    expect(limited.body.more).toBe(list.length - 2);
    expectErrorEnvelope(await get(`${cr}/changes?limit=0`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=1001`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=ten`), 400, /limit/);
  });

  it('a moved subtree under a new parent, and a page moved to the top level', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'update_page', page: space.old, into: space.guide },
      { operation: 'update_page', page: space.install, into: null },
    ]);
    const res = await get(`${cr}/changes`).expect(200);
    expectContract(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    expect(list.map((c) => [c.type, c.page?.id]).sort()).toEqual(
      [
        ['page_moved', space.install],
        ['page_moved', space.old],
      ].sort(),
    );
    const install = list.find((c) => c.page?.id === space.install);
    expect(install?.parent).toEqual({ before: { id: space.guide, type: 'document', title: 'Guide', path: 'guide' } });
    const old = list.find((c) => c.page?.id === space.old);
    expect(old?.page?.path).toBe('guide/old');
  });

  it('a revision against its parent; a merge revision names its change request', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [{ operation: 'update_page', page: space.guide, title: 'Handbook' }]);
    const head = (await get(cr).expect(200)).body;
    const own = await get(`/v1/spaces/${space.id}/revisions/${head.revision as string}/changes?metadata=false`).expect(200);
    expectChanges(own, 'getRevisionSemanticChanges');
    expect(own.body.changes).toEqual([
      {
        type: 'page_edited',
        page: { id: space.guide, type: 'document', title: 'Handbook', path: 'guide' },
        attributes: { title: { before: 'Guide', after: 'Handbook' } },
      },
    ]);
    expect(own.body.mergedFrom).toBeUndefined();
    const merged = await post(`${cr}/merge`).expect(200);
    const res = await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes`).expect(200);
    expectChanges(res, 'getRevisionSemanticChanges');
    expectPublicSchema(res.body.mergedFrom, 'ChangeRequest');
    expect(res.body.mergedFrom).toMatchObject({ object: 'change-request', id: head.id, status: 'merged' });
    expect(res.body.changes.map((c: Change) => [c.type, c.page?.title])).toEqual([['page_edited', 'Handbook']]);
    // The space's first revision has no parent: everything in it is new (an empty space: nothing).
    const fresh = await createSpace(t, org);
    expect((await get(`/v1/spaces/${fresh.id}/revisions/${fresh.revisionId}/changes`).expect(200)).body).toEqual({ changes: [] });
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes?limit=-1`), 400, /limit/);
  });
  it('reads only the keys its deltas changed, across an update from main: the same changes as comparing rows', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.guide, title: 'Handbook' },
      { operation: 'delete_page', page: space.old },
    ]);
    // Main moves on: a page only main's layer has, and an edit.
    const other = await newChangeRequest(space.id);
    await changes(other, [
      { operation: 'insert_page', title: 'Mainline', document: { markdown: 'mainline' } },
      { operation: 'update_page', page: space.reference, title: 'API' },
    ]);
    await post(`${other}/merge`).expect(200);
    const mainline = ((await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[]).find(
      (page) => page.title === 'Mainline',
    )?.id as string;
    await post(`${cr}/update`).expect(200);
    // After the update: delete main's new page, take the retitle back (its key is in a delta, its row is main's again), add a file.
    await changes(cr, [
      { operation: 'delete_page', page: mainline },
      { operation: 'revert_page', page: space.guide },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const read = async () => {
      const res = await get(`${cr}/changes?limit=100`).expect(200);
      return (res.body.changes as Change[]).map((c) => [c.type, c.page?.title ?? c.file?.name]);
    };
    const byDeltas = await read();
    expect([...byDeltas].sort()).toEqual(
      [
        ['file_created', 'logo.png'],
        ['page_created', 'Fresh'],
        ['page_deleted', 'Mainline'],
        ['page_deleted', 'Old'],
        ['page_deleted', 'Older'],
      ].sort(),
    );
    const db = t.dataSource;
    // The reader takes the deltas' keys and nothing else: emptied, it finds no change.
    const saved: { id: string; delta_page_ids: string[]; delta_file_ids: string[] }[] = await db.query(
      `SELECT id, delta_page_ids, delta_file_ids FROM revisions WHERE space_id = $1 AND delta_base_id IS NOT NULL`,
      [space.id],
    );
    await db.query(`UPDATE revisions SET delta_page_ids = '{}', delta_file_ids = '{}' WHERE space_id = $1 AND delta_base_id IS NOT NULL`, [space.id]);
    expect(await read()).toEqual([]);
    // Without them (revisions written before the keys were kept) it compares rows, and finds the same.
    await db.query(`UPDATE revisions SET delta_page_ids = NULL WHERE space_id = $1`, [space.id]);
    expect(await read()).toEqual(byDeltas);
    for (const row of saved)
      await db.query(`UPDATE revisions SET delta_page_ids = $2, delta_file_ids = $3 WHERE id = $1`, [row.id, row.delta_page_ids, row.delta_file_ids]);
    expect(await read()).toEqual(byDeltas);
  });
});
