import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTeam, expectLimitUpTo1000 } from '../support/org-admin-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('member spaces', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const path = (org: OrgFixture, member: Actor) => `/v1/orgs/${org.id}/members/${member.user.id}/spaces`;

  /** Every item of the list, page by page, checking each page against the public schema. */
  async function walk(org: OrgFixture, member: Actor, caller: Actor, query: Record<string, string | number> = {}) {
    const items: { permission: string; id: string }[] = [];
    let page: string | undefined;
    let count = -1;
    do {
      const res = await t.http
        .get(path(org, member))
        .query({ ...query, ...(page ? { page } : {}) })
        .set(...caller.auth)
        .expect(200);
      expectContract(res, 'listSpacesForOrganizationMember');
      if (count === -1) count = res.body.count;
      items.push(...res.body.items.map((item: { permission: string; space: { id: string } }) => ({ permission: item.permission, id: item.space.id })));
      page = res.body.next?.page;
    } while (page);
    return { items, count };
  }

  it("lists a guest's spaces with the level the access model gives them, newest first by default", async () => {
    const org = await createOrganization(t);
    const collection = await createCollection(t, org);
    const viaTeam = await createSpace(t, org, { parent: collection.id });
    await createSpace(t, org); // not reachable
    const direct = await createSpace(t, org);
    const guest = await addMember(t, org, null);
    const team = await createTeam(t, org, { members: [guest] });
    await t.http
      .post(`/v1/collections/${collection.id}/permissions`)
      .set(...org.admin.auth)
      .send({ role: 'comment', teams: [team.id] })
      .expect(204);
    await t.http
      .post(`/v1/spaces/${direct.id}/permissions`)
      .set(...org.admin.auth)
      .send({ role: 'review', users: [guest.user.id] })
      .expect(204);

    const { items, count } = await walk(org, guest, org.admin);
    expect(count).toBe(2);
    expect(items).toEqual([
      { permission: 'review', id: direct.id },
      { permission: 'comment', id: viaTeam.id },
    ]);
    // The space JSON carries the caller's permissions, not the member's.
    const res = await t.http
      .get(path(org, guest))
      .set(...org.admin.auth)
      .expect(200);
    expect(res.body.items[0].space.permissions).toMatchObject({ admin: true });
  });

  it("walks a member's spaces once in either order, with the member's level on each", async () => {
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'edit');
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await createSpace(t, org)).id);
    await t.http
      .patch(`/v1/spaces/${created[2]}`)
      .set(...org.admin.auth)
      .send({ defaultLevel: 'admin' })
      .expect(200);
    const deleted = await createSpace(t, org);
    await t.http
      .delete(`/v1/spaces/${deleted.id}`)
      .set(...org.admin.auth)
      .expect(205);

    const asc = await walk(org, member, member, { order: 'asc', limit: 2 });
    expect(asc.count).toBe(5);
    expect(asc.items.map((item) => item.id)).toEqual(created);
    expect(asc.items.map((item) => item.permission)).toEqual(['edit', 'edit', 'admin', 'edit', 'edit']);
    const desc = await walk(org, member, member, { limit: 2 });
    expect(desc.items.map((item) => item.id)).toEqual([...created].reverse());
  });

  it("shows a member's spaces to admins and to the member only (403 otherwise), 404 for a user not in the organization", async () => {
    const org = await createOrganization(t);
    await createSpace(t, org);
    const member = await addMember(t, org, 'read');
    const creator = await addMember(t, org, 'create');
    expectErrorEnvelope(await t.http.get(path(org, member)).set(...creator.auth), 403);
    await t.http
      .get(path(org, member))
      .set(...member.auth)
      .expect(200);
    const stranger = await createUser(t);
    expectErrorEnvelope(await t.http.get(path(org, stranger)).set(...org.admin.auth), 404, /Member/);
  });

  it('accepts limit=1000, refuses limit=1001 and an unknown order', async () => {
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'read');
    await expectLimitUpTo1000(t, path(org, member), org.admin);
    expectErrorEnvelope(
      await t.http
        .get(path(org, member))
        .query({ order: 'newest' })
        .set(...org.admin.auth),
      400,
      /order/,
    );
  });
});
