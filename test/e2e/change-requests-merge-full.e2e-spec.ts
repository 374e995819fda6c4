import { createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

/**
 * The merge compares only the layers' own pages when base, head and main are layers over one full
 * revision (change-requests-content covers that path). With a layer bound of one row every revision
 * is written full, so these merges take the other path: the three revisions compared whole in SQL.
 */
describe('change request merges over full revisions (the whole comparison)', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ REVISION_LAYER_MIN_ROWS: '1' });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body?: object) => {
    const req = t.http.post(path).set(...org.admin.auth);
    return body === undefined ? req : req.send(body);
  };
  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const newChangeRequest = async (spaceId: string) => {
    const res = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return `/v1/spaces/${spaceId}/change-requests/${res.body.id as string}`;
  };
  const changes = (url: string, list: object[]) => post(`${url}/content`, { changes: list });
  const layered = async (revisionId: string) => (await t.dataSource.query(`SELECT base_id FROM revisions WHERE id = $1`, [revisionId]))[0].base_id !== null;
  const edit = (at: number, text: string, body = lines(20)) => body.map((line, i) => (i === at ? text : line)).join('\n');

  async function spaceWithPages(): Promise<{ id: string; shared: string; other: string }> {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Shared', document: { markdown: lines(20).join('\n') } },
      { operation: 'insert_page', title: 'Other', document: { markdown: 'other' } },
    ]).expect(200);
    await post(`${cr}/merge`).expect(200);
    const tree = await get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    const id = (title: string) => tree.body.pages.find((page: { title: string }) => page.title === title).id as string;
    return { id: space.id, shared: id('Shared'), other: id('Other') };
  }

  it('keeps non-conflicting edits of two change requests, and main’s own edit, through update and merge', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [
      { operation: 'update_page', page: space.shared, document: { markdown: edit(1, 'line 2 by A') } },
      { operation: 'update_page', page: space.other, title: 'Other by A' },
    ]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(17, 'line 18 by B') } }]).expect(200);

    const merged = await post(`${a}/merge`).expect(200);
    // Main is now a full revision other than B's base: B's update compares the three whole.
    expect(await layered(merged.body.revision)).toBe(false);
    await post(`${b}/update`).expect(200);
    await post(`${b}/merge`).expect(200);

    const shared = await get(`/v1/spaces/${space.id}/content/page/${space.shared}`).expect(200);
    expect(shared.body.markdown.split('\n')).toEqual(edit(17, 'line 18 by B', edit(1, 'line 2 by A').split('\n')).split('\n'));
    const other = await get(`/v1/spaces/${space.id}/content/page/${space.other}`).expect(200);
    expect(other.body.title).toBe('Other by A');
  });

  it('answers 409 naming the page for overlapping edits, and leaves the space revision unchanged', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'A wrote this') } }]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'B wrote that') } }]).expect(200);
    await post(`${a}/merge`).expect(200);
    const before = (await get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    const conflict = await post(`${b}/merge`);
    expectErrorEnvelope(conflict, 409);
    expect(conflict.body.error.message).toContain('Shared');
    expect((await get(`/v1/spaces/${space.id}`).expect(200)).body.revision).toBe(before);
  });
});
