import { jwtVerify } from 'jose';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { ServerSecret } from '../../src/modules/members/server-secret.entity';
import { VISITOR_CLAIMS_SECRET } from '../../src/modules/members/visitor-claims.service';
import { PermissionGrant } from '../../src/modules/access/permission-grant.entity';
import { TeamMember } from '../../src/modules/teams/team-member.entity';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSpace, createTeam, expectLimitUpTo1000, grantSpace, setLastSeen, walkList } from '../support/org-admin-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { createCollection, createSpace as createSpaceIn } from '../support/space-builders';

const SIGNING_SECRET = 'a-test-signing-secret-of-at-least-32-chars';

describe('members', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ SIGNING_SECRET })));
  afterAll(() => t.close());

  const members = (org: OrgFixture) => `/v1/orgs/${org.id}/members`;
  const member = (org: OrgFixture, actor: Actor | string) => `${members(org)}/${typeof actor === 'string' ? actor : actor.user.id}`;

  describe('GET /v1/orgs/{organizationId}/members', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(members(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists members with their user, role and counts, newest first', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read', { name: 'Rita Reader' });
      const res = await t.http
        .get(members(org))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listMembersInOrganizationById');
      expect(res.body.count).toBe(2);
      expect(res.body).not.toHaveProperty('next');
      expect(res.body.items.map((item: { id: string }) => item.id)).toEqual([reader.user.id, org.admin.user.id]);
      expect(res.body.items[0]).toEqual({
        object: 'member',
        id: reader.user.id,
        role: 'read',
        user: {
          object: 'user',
          id: reader.user.id,
          displayName: 'Rita Reader',
          email: reader.user.email,
          urls: { location: `http://quire.test/v1/users/${reader.user.id}` },
        },
        disabled: false,
        joinedAt: expect.any(String),
        sso: false,
        spaces: 0,
        teams: 0,
        sites: 0,
      });
    });

    it('filters by role, guests included', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const guest = await addMember(t, org, null);
      const editors = await t.http
        .get(members(org))
        .query({ role: 'edit' })
        .set(...org.admin.auth)
        .expect(200);
      expect(editors.body.items.map((item: { id: string }) => item.id)).toEqual([editor.user.id]);
      const guests = await t.http
        .get(members(org))
        .query({ role: 'guest' })
        .set(...org.admin.auth)
        .expect(200);
      expect(guests.body).toMatchObject({ count: 1, items: [{ id: guest.user.id, role: null }] });
    });

    it('searches display names and e-mails case-insensitively, with LIKE wildcards taken literally', async () => {
      const org = await createOrganization(t);
      const ada = await addMember(t, org, 'read', { name: 'Ada Lovelace' });
      const grace = await addMember(t, org, 'read', { email: `grace.HOPPER.${Date.now()}@navy.test`, name: 'G' });
      const percent = await addMember(t, org, 'read', { name: '100% Coverage' });
      const search = async (text: string) =>
        (
          await t.http
            .get(members(org))
            .query({ search: text })
            .set(...org.admin.auth)
            .expect(200)
        ).body.items.map((item: { id: string }) => item.id);
      expect(await search('lovelace')).toEqual([ada.user.id]);
      expect(await search('hopper')).toEqual([grace.user.id]);
      expect(await search('0%')).toEqual([percent.user.id]);
      expect(await search('_')).toEqual([]);
    });

    it('walks every member exactly once, in both orders', async () => {
      const org = await createOrganization(t);
      const joined = [org.admin.user.id];
      for (let i = 0; i < 6; i++) joined.push((await addMember(t, org, 'read')).user.id);
      const check = (res: any) => expectContract(res, 'listMembersInOrganizationById');
      const desc = await walkList(t, members(org), org.admin, { limit: 3 }, check);
      expect(desc).toEqual({ ids: [...joined].reverse(), pages: 3, count: 7 });
      const asc = await walkList(t, members(org), org.admin, { limit: 2, order: 'asc' }, check);
      expect(asc).toEqual({ ids: joined, pages: 4, count: 7 });
    });

    it('sorts by lastSeenAt, listing only members who have been seen', async () => {
      const org = await createOrganization(t);
      const [a, b, c] = [await addMember(t, org, 'read'), await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      await addMember(t, org, 'read'); // never seen: not listed
      await setLastSeen(t, org, b, new Date('2030-01-01T00:00:00.000Z'));
      await setLastSeen(t, org, a, new Date('2030-01-02T00:00:00.000Z'));
      await setLastSeen(t, org, c, new Date('2029-12-31T00:00:00.000Z'));
      const walk = await walkList(t, members(org), org.admin, { sort: 'lastSeenAt', limit: 2 }, (res) => expectContract(res, 'listMembersInOrganizationById'));
      expect(walk).toEqual({ ids: [a.user.id, b.user.id, c.user.id], pages: 2, count: 3 });
      const first = await t.http
        .get(members(org))
        .query({ sort: 'lastSeenAt', limit: 1 })
        .set(...org.admin.auth)
        .expect(200);
      expect(first.body.items[0].lastSeenAt).toBe('2030-01-02T00:00:00.000Z');
      const asc = await walkList(t, members(org), org.admin, { sort: 'lastSeenAt', order: 'asc', limit: 1 });
      expect(asc.ids).toEqual([c.user.id, b.user.id, a.user.id]);
    });

    it('sorts by name', async () => {
      const org = await createOrganization(t);
      const names = ['delta', 'Alpha', 'charlie', 'Bravo'];
      const byName = new Map<string, string>();
      for (const name of names) byName.set(name, (await addMember(t, org, 'read', { name })).user.id);
      const walk = await walkList(t, members(org), org.admin, { sort: 'name', order: 'asc', limit: 2, role: 'read' });
      expect(walk.ids).toEqual(['Alpha', 'Bravo', 'charlie', 'delta'].map((name) => byName.get(name)));
    });

    it('refuses a cursor from another sort', async () => {
      const org = await createOrganization(t);
      await addMember(t, org, 'read');
      const first = await t.http
        .get(members(org))
        .query({ limit: 1 })
        .set(...org.admin.auth)
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .get(members(org))
          .query({ limit: 1, sort: 'name', page: first.body.next.page })
          .set(...org.admin.auth),
        400,
        /page/,
      );
    });

    it('accepts limit=1000 and refuses limit=1001', async () => {
      const org = await createOrganization(t);
      await expectLimitUpTo1000(t, members(org), org.admin);
    });

    it.each([
      ['an unknown sort', { sort: 'age' }, /sort/],
      ['an unknown order', { order: 'up' }, /order/],
      ['an unknown role', { role: 'owner' }, /role/],
      ['a search of 257 characters', { search: 'x'.repeat(257) }, /search/],
    ])('refuses %s with 400 naming the field', async (_case, query, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .get(members(org))
          .query(query)
          .set(...org.admin.auth),
        400,
        field,
      );
    });
  });

  describe('live counts', () => {
    it('counts non-deleted spaces granted directly or through a team, each once, and teams', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const team = await createTeam(t, org, { members: [reader] });
      await createTeam(t, org, { members: [reader] });
      const direct = await createSpace(t, org);
      const viaTeam = await createSpace(t, org);
      const both = await createSpace(t, org);
      const deleted = await createSpace(t, org, { deleted: true });
      await grantSpace(t, org, direct, { userId: reader.user.id });
      await grantSpace(t, org, viaTeam, { teamId: team.id });
      await grantSpace(t, org, both, { userId: reader.user.id });
      await grantSpace(t, org, both, { teamId: team.id });
      await grantSpace(t, org, deleted, { userId: reader.user.id });
      await grantSpace(t, org, await createSpace(t, org), { userId: org.admin.user.id }); // someone else's

      const res = await t.http
        .get(member(org, reader))
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body).toMatchObject({ spaces: 3, teams: 2 });
      const list = await t.http
        .get(members(org))
        .set(...org.admin.auth)
        .expect(200);
      expect(list.body.items.map((item: { spaces: number; teams: number }) => [item.spaces, item.teams])).toEqual([
        [3, 2],
        [1, 0],
      ]);
    });
  });

  describe('GET /v1/orgs/{organizationId}/members/{userId}', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(member(org, org.admin)),
      anonymous: 401,
      outsider: 404,
    });

    it('answers any member, with the public shape', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .get(member(org, org.admin))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'getMemberInOrganizationById');
      expect(res.body).toMatchObject({ object: 'member', id: org.admin.user.id, role: 'admin' });
    });

    it('lets a guest see only themselves', async () => {
      const org = await createOrganization(t);
      const guest = await addMember(t, org, null);
      const self = await t.http
        .get(member(org, guest))
        .set(...guest.auth)
        .expect(200);
      expect(self.body).toMatchObject({ id: guest.user.id, role: null });
      expectErrorEnvelope(await t.http.get(member(org, org.admin)).set(...guest.auth), 403);
    });

    it('answers 404 for a user who is not a member', async () => {
      const org = await createOrganization(t);
      const stranger = await createUser(t);
      expectErrorEnvelope(await t.http.get(member(org, stranger)).set(...org.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(member(org, 'nope')).set(...org.admin.auth), 404);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}/members/{userId}', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.patch(member(org, org.admin)).send({ role: 'read' }),
      anonymous: 401,
      outsider: 404,
    });

    it('refuses a member who is not an admin with 403', async () => {
      const org = await createOrganization(t);
      const creator = await addMember(t, org, 'create');
      const reader = await addMember(t, org, 'read');
      await expectRefused(() => t.http.patch(member(org, reader)).send({ role: 'edit' }), [creator, 403]);
    });

    it('lets an admin change a role, and make a member a guest with null', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .patch(member(org, reader))
        .set(...org.admin.auth)
        .send({ role: 'review' })
        .expect(200);
      expectContract(res, 'updateMemberInOrganizationById');
      expect(res.body).toMatchObject({ id: reader.user.id, role: 'review' });
      const guest = await t.http
        .patch(member(org, reader))
        .set(...org.admin.auth)
        .send({ role: null })
        .expect(200);
      expect(guest.body.role).toBeNull();
      const got = await t.http
        .get(member(org, reader))
        .set(...org.admin.auth)
        .expect(200);
      expect(got.body.role).toBeNull();
    });

    it.each([
      ['an unknown role', { role: 'owner' }],
      ['a missing role', {}],
      ['an unknown field', { role: 'read', admin: true }],
    ])('refuses %s with 400', async (_case, body) => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      expectErrorEnvelope(
        await t.http
          .patch(member(org, reader))
          .set(...org.admin.auth)
          .send(body),
        400,
        /role|admin/,
      );
    });

    it('answers 404 for a user who is not a member', async () => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .patch(member(org, 'nope'))
          .set(...org.admin.auth)
          .send({ role: 'read' }),
        404,
      );
    });

    it('refuses to demote the last admin with 409, and allows it once another admin exists', async () => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .patch(member(org, org.admin))
          .set(...org.admin.auth)
          .send({ role: 'create' }),
        409,
        /last admin/,
      );
      await t.http
        .patch(member(org, org.admin))
        .set(...org.admin.auth)
        .send({ role: 'admin' })
        .expect(200);
      const second = await addMember(t, org, 'read');
      await t.http
        .patch(member(org, second))
        .set(...org.admin.auth)
        .send({ role: 'admin' })
        .expect(200);
      const demoted = await t.http
        .patch(member(org, org.admin))
        .set(...org.admin.auth)
        .send({ role: 'create' })
        .expect(200);
      expect(demoted.body.role).toBe('create');
      expectErrorEnvelope(
        await t.http
          .patch(member(org, second))
          .set(...second.auth)
          .send({ role: null }),
        409,
        /last admin/,
      );
    });

    it('does not count a disabled admin as the one that remains', async () => {
      const org = await createOrganization(t);
      const disabled = await addMember(t, org, 'admin');
      await t.dataSource.getRepository(Membership).update({ organizationId: org.id, userId: disabled.user.id }, { disabled: true });
      expectErrorEnvelope(
        await t.http
          .patch(member(org, org.admin))
          .set(...org.admin.auth)
          .send({ role: 'read' }),
        409,
      );
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/members/{userId}', () => {
    it('refuses a member who is not an admin removing someone else with 403', async () => {
      const org = await createOrganization(t);
      const creator = await addMember(t, org, 'create');
      const reader = await addMember(t, org, 'read');
      await expectRefused(() => t.http.delete(member(org, reader)), [creator, 403]);
    });

    it('removes a member with their team memberships and grants', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const team = await createTeam(t, org, { members: [reader] });
      await grantSpace(t, org, await createSpace(t, org), { userId: reader.user.id });
      await grantSpace(t, org, await createSpace(t, org), { teamId: team.id });

      const res = await t.http
        .delete(member(org, reader))
        .set(...org.admin.auth)
        .expect(204);
      expect(res.text).toBe('');
      expectErrorEnvelope(await t.http.get(member(org, reader)).set(...org.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(members(org)).set(...reader.auth), 404);
      expect(await t.dataSource.getRepository(TeamMember).countBy({ userId: reader.user.id })).toBe(0);
      expect(await t.dataSource.getRepository(PermissionGrant).countBy({ userId: reader.user.id })).toBe(0);
      // the team and its own grant stay
      expect(await t.dataSource.getRepository(PermissionGrant).countBy({ teamId: team.id })).toBe(1);
    });

    it('lets a member leave the organization', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      await t.http
        .delete(member(org, reader))
        .set(...reader.auth)
        .expect(204);
      expectErrorEnvelope(await t.http.get(member(org, reader)).set(...org.admin.auth), 404);
    });

    it('refuses to remove the last admin with 409', async () => {
      const org = await createOrganization(t);
      await addMember(t, org, 'create');
      expectErrorEnvelope(await t.http.delete(member(org, org.admin)).set(...org.admin.auth), 409, /last admin/);
      const other = await addMember(t, org, 'admin');
      await t.http
        .delete(member(org, org.admin))
        .set(...other.auth)
        .expect(204);
    });

    it('answers 404 for a user who is not a member', async () => {
      const org = await createOrganization(t);
      expectErrorEnvelope(await t.http.delete(member(org, 'nope')).set(...org.admin.auth), 404);
    });
  });

  describe('POST /v1/orgs/{organizationId}/ping', () => {
    const ping = (org: OrgFixture) => `/v1/orgs/${org.id}/ping`;

    itChecksAccess(() => t, {
      request: (org) => t.http.post(ping(org)),
      anonymous: 401,
      outsider: 404,
    });

    it("records the caller's activity and returns their visitor claims signed with SIGNING_SECRET", async () => {
      const org = await createOrganization(t);
      const guest = await addMember(t, org, null);
      const before = Date.now();
      const res = await t.http
        .post(ping(org))
        .set(...guest.auth)
        .expect(200);
      expectContract(res, 'updateOrganizationMemberLastSeenAt');
      const { payload, protectedHeader } = await jwtVerify(res.body.gitbookVisitorClaims, new TextEncoder().encode(SIGNING_SECRET), {
        issuer: 'http://quire.test',
      });
      expect(protectedHeader.alg).toBe('HS256');
      expect(payload).toMatchObject({ sub: guest.user.id, organization: org.id, role: null });
      expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
      expect((payload.iat as number) * 1000).toBeGreaterThanOrEqual(before - 1000);

      const self = await t.http
        .get(member(org, guest))
        .set(...guest.auth)
        .expect(200);
      expect(Date.parse(self.body.lastSeenAt)).toBeGreaterThanOrEqual(before - 1000);
      const seen = await t.http
        .get(members(org))
        .query({ sort: 'lastSeenAt' })
        .set(...org.admin.auth)
        .expect(200);
      expect(seen.body.items.map((item: { id: string }) => item.id)).toEqual([guest.user.id]);
    });

    it('without SIGNING_SECRET, signs with a key generated once in the database that every replica shares', async () => {
      const replicaA = await createTestApp();
      const replicaB = await createTestApp();
      try {
        const org = await createOrganization(replicaA);
        const a = await replicaA.http
          .post(ping(org))
          .set(...org.admin.auth)
          .expect(200);
        const b = await replicaB.http
          .post(ping(org))
          .set(...org.admin.auth)
          .expect(200);
        const secret = await replicaA.dataSource.getRepository(ServerSecret).findOneByOrFail({ name: VISITOR_CLAIMS_SECRET });
        expect(secret.value.length).toBeGreaterThanOrEqual(32);
        for (const token of [a.body.gitbookVisitorClaims, b.body.gitbookVisitorClaims]) {
          const { payload } = await jwtVerify(token, new TextEncoder().encode(secret.value));
          expect(payload).toMatchObject({ sub: org.admin.user.id, organization: org.id, role: 'admin' });
        }
        await expect(jwtVerify(a.body.gitbookVisitorClaims, new TextEncoder().encode(SIGNING_SECRET))).rejects.toThrow();
      } finally {
        await replicaA.close();
        await replicaB.close();
      }
    });
  });

  describe('POST /v1/orgs/{organizationId}/members/{userId}/sso', () => {
    const sso = (org: OrgFixture, actor: Actor | string) => `${member(org, actor)}/sso`;

    itChecksAccess(() => t, {
      // About the admin; the creator of the 403 check asks about themselves.
      request: (org, _, creator) => t.http.post(sso(org, creator ?? org.admin)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403 },
    });

    it('marks the member as an SSO member', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .post(sso(org, reader))
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'setUserAsSSOMemberForOrganization');
      expect(res.body).toMatchObject({ id: reader.user.id, sso: true });
      expect((await t.http.get(member(org, reader)).set(...org.admin.auth)).body.sso).toBe(true);
    });

    it('answers 404 for a user who is not a member', async () => {
      const org = await createOrganization(t);
      expectErrorEnvelope(await t.http.post(sso(org, 'nope')).set(...org.admin.auth), 404);
    });
  });
});

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
    const viaTeam = await createSpaceIn(t, org, { parent: collection.id });
    await createSpaceIn(t, org); // not reachable
    const direct = await createSpaceIn(t, org);
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
    for (let i = 0; i < 5; i++) created.push((await createSpaceIn(t, org)).id);
    await t.http
      .patch(`/v1/spaces/${created[2]}`)
      .set(...org.admin.auth)
      .send({ defaultLevel: 'admin' })
      .expect(200);
    const deleted = await createSpaceIn(t, org);
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
    await createSpaceIn(t, org);
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
