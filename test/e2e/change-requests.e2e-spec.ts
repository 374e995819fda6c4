import { addMember, Actor, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('change requests (create, read, list, PATCH)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  let reader: Actor;
  let editor: Actor;

  beforeAll(async () => {
    t = await createTestApp(process.env.CR_DEBUG ? { LOG_LEVEL: 'error' } : {}, process.env.CR_DEBUG ? (process.stderr as never) : undefined);
    org = await createOrganization(t);
    space = await createSpace(t, org);
    reader = await addMember(t, org, 'read');
    editor = await addMember(t, org, 'edit');
  });
  afterAll(() => t.close());

  const base = () => `/v1/spaces/${space.id}/change-requests`;
  const create = (body: object = {}, actor: Actor = org.admin) =>
    t.http
      .post(base())
      .set(...actor.auth)
      .send(body);
  const spaceJson = async () => (await t.http.get(`/v1/spaces/${space.id}`).set(...org.admin.auth)).body;

  it('answers 403 to a reader who creates', async () => {
    expectErrorEnvelope(await create({}, reader), 403);
  });

  it('creates (201, Location), gets by id and by number, and the space counts it', async () => {
    const before = await spaceJson();
    const res = await create({ subject: 'First change', agentTaskId: 'task-1' }, editor).expect(201);
    expectContract(res, 'createChangeRequest');
    expect(res.headers.location).toBe(res.body.urls.location);
    expect(res.body).toMatchObject({
      object: 'change-request',
      status: 'open',
      subject: 'First change',
      revision: space.revisionId,
      revisionInitial: space.revisionId,
      comments: 0,
      outdated: false,
      space: space.id,
      createdBy: { id: editor.user.id },
    });
    const byNumber = await t.http
      .get(`${base()}/${res.body.number}`)
      .set(...reader.auth)
      .expect(200);
    expectContract(byNumber, 'getChangeRequestById');
    expect(byNumber.body.id).toBe(res.body.id);
    const byId = await t.http
      .get(`${base()}/${res.body.id}`)
      .set(...reader.auth)
      .expect(200);
    expect(byId.body.number).toBe(res.body.number);
    expectErrorEnvelope(await t.http.get(`${base()}/999999`).set(...reader.auth), 404);
    const after = await spaceJson();
    expect(after.changeRequests).toBe(before.changeRequests + 1);
    expect(after.changeRequestsOpen).toBe(before.changeRequestsOpen + 1);
  });

  it('takes a subject of 100 characters and refuses 101; refuses null', async () => {
    expect((await create({ subject: 'a'.repeat(100) }).expect(201)).body.subject).toHaveLength(100);
    expectErrorEnvelope(await create({ subject: 'a'.repeat(101) }), 400, /subject/);
    expectErrorEnvelope(await create({ subject: null }), 400, /subject/);
    const cr = (await create().expect(201)).body;
    expectErrorEnvelope(
      await t.http
        .patch(`${base()}/${cr.id}`)
        .set(...org.admin.auth)
        .send({ subject: 'b'.repeat(101) }),
      400,
      /subject/,
    );
    const ok = await t.http
      .patch(`${base()}/${cr.id}`)
      .set(...org.admin.auth)
      .send({ subject: 'b'.repeat(100) })
      .expect(200);
    expectContract(ok, 'updateChangeRequestById');
  });

  it('moves between draft, open and archived by PATCH, with the space counters following; merged is refused', async () => {
    const cr = (await create({ subject: 'status walk' }).expect(201)).body;
    const patch = (body: object) =>
      t.http
        .patch(`${base()}/${cr.number}`)
        .set(...org.admin.auth)
        .send(body);
    let counters = await spaceJson();
    expect((await patch({ status: 'draft' }).expect(200)).body.status).toBe('draft');
    let now = await spaceJson();
    expect([now.changeRequestsOpen, now.changeRequestsDraft]).toEqual([counters.changeRequestsOpen - 1, counters.changeRequestsDraft + 1]);
    counters = now;
    expect((await patch({ status: 'archived' }).expect(200)).body.status).toBe('archived');
    now = await spaceJson();
    expect([now.changeRequestsOpen, now.changeRequestsDraft, now.changeRequests]).toEqual([
      counters.changeRequestsOpen,
      counters.changeRequestsDraft - 1,
      counters.changeRequests,
    ]);
    expect((await patch({ status: 'open' }).expect(200)).body.status).toBe('open');
    expectErrorEnvelope(await patch({ status: 'merged' }), 400, /status/);
    expectErrorEnvelope(await patch({ status: null }), 400, /status/);
  });

  it('lists open change requests by default, filters by status and contributor, and pages', async () => {
    const other = await addMember(t, org, 'edit');
    const mine = (await create({ subject: 'by other' }, other).expect(201)).body;
    const draft = (await create({ subject: 'to draft' }).expect(201)).body;
    await t.http
      .patch(`${base()}/${draft.id}`)
      .set(...org.admin.auth)
      .send({ status: 'draft' })
      .expect(200);

    const open = await t.http
      .get(base())
      .set(...reader.auth)
      .expect(200);
    expectContract(open, 'listChangeRequestsForSpace');
    expect(open.body.items.every((cr: { status: string }) => cr.status === 'open')).toBe(true);
    expect(open.body.items.map((cr: { id: string }) => cr.id)).not.toContain(draft.id);
    const drafts = await t.http
      .get(`${base()}?status=draft`)
      .set(...reader.auth)
      .expect(200);
    expect(drafts.body.items.map((cr: { id: string }) => cr.id)).toContain(draft.id);
    const byOther = await t.http
      .get(`${base()}?contributor=${other.user.id}`)
      .set(...reader.auth)
      .expect(200);
    expect(byOther.body.items.map((cr: { id: string }) => cr.id)).toEqual([mine.id]);

    const seen: string[] = [];
    let next: string | undefined;
    do {
      const res = await t.http
        .get(`${base()}?limit=2${next ? `&page=${next}` : ''}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listChangeRequestsForSpace');
      seen.push(...res.body.items.map((cr: { id: string }) => cr.id));
      next = res.body.next?.page;
    } while (next);
    expect(seen.length).toBe(open.body.count);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('gives concurrent creates distinct consecutive numbers', async () => {
    const other = await createSpace(t, org);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.http
          .post(`/v1/spaces/${other.id}/change-requests`)
          .set(...org.admin.auth)
          .send({}),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(201));
    expect(results.map((res) => res.body.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const json = (await t.http.get(`/v1/spaces/${other.id}`).set(...org.admin.auth)).body;
    expect([json.changeRequests, json.changeRequestsOpen]).toEqual([8, 8]);
  });
});
