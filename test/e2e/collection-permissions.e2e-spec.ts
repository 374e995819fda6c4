import { expectRefused } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTeam } from '../support/org-admin-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('collection permissions', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const invite = (collectionId: string, actor: Actor, body: object) =>
    t.http
      .post(`/v1/collections/${collectionId}/permissions`)
      .set(...actor.auth)
      .send(body);
  const collectionPermissions = async (collectionId: string, actor: Actor) => {
    const res = await t.http.get(`/v1/collections/${collectionId}`).set(...actor.auth);
    return res.status === 200 ? res.body.permissions : res.status;
  };

  describe('the effective level on a collection', () => {
    it('comes from the organization role, the default levels above, and grants on it or above', async () => {
      const org = await createOrganization(t);
      const outer = await createCollection(t, org);
      const inner = await createCollection(t, org, { parent: outer.id });
      const reader = await addMember(t, org, 'read');
      const guest = await addMember(t, org, null);
      expect(await collectionPermissions(inner.id, reader)).toEqual({ view: true, create: false, admin: false, viewInviteLinks: false });
      expect(await collectionPermissions(inner.id, guest)).toBe(403);

      await t.http
        .patch(`/v1/collections/${outer.id}`)
        .set(...org.admin.auth)
        .send({ defaultLevel: 'create' })
        .expect(200);
      expect(await collectionPermissions(inner.id, reader)).toMatchObject({ create: true, admin: false });
      expect(await collectionPermissions(inner.id, guest)).toBe(403);

      const team = await createTeam(t, org, { members: [guest] });
      await invite(outer.id, org.admin, { role: 'admin', teams: [team.id] }).expect(204);
      expect(await collectionPermissions(inner.id, guest)).toEqual({ view: true, create: true, admin: true, viewInviteLinks: true });
    });

    it('flows down to the spaces inside, so a collection admin administers them', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const space = await createSpace(t, org, { parent: collection.id });
      const guest = await addMember(t, org, null);
      await invite(collection.id, org.admin, { role: 'admin', users: [guest.user.id] }).expect(204);
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...guest.auth)
        .send({ title: 'Renamed by the collection admin' })
        .expect(200);
      const listed = await t.http
        .get(`/v1/collections/${collection.id}/spaces`)
        .set(...guest.auth)
        .expect(200);
      expectContract(listed, 'listSpacesInCollectionById');
      expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([space.id]);
    });
  });

  describe('POST /v1/collections/{collectionId}/permissions', () => {
    it('requires authentication, answers 404 outside the organization and 403 below admin', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const member = await addMember(t, org, 'read');
      const body = { role: 'read', users: [member.user.id] };
      expectErrorEnvelope(await t.http.post(`/v1/collections/${collection.id}/permissions`).send(body), 401);
      const res = await invite(collection.id, await createUser(t), body);
      expectErrorEnvelope(res, 404);
      expectContract(res, 'inviteToCollection');
      expectErrorEnvelope(await invite(collection.id, await addMember(t, org, 'create'), body), 403);
      expectErrorEnvelope(await invite('unknown', org.admin, body), 404);
    });

    it('grants users and teams, listed with the public shapes', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const member = await addMember(t, org, 'comment');
      const team = await createTeam(t, org, { members: [member] });
      await invite(collection.id, org.admin, { role: 'review', users: [member.user.id], teams: [team.id] }).expect(204);
      const users = await t.http
        .get(`/v1/collections/${collection.id}/permissions/users`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(users, 'listUserPermissionsInCollection');
      expect(users.body).toMatchObject({ count: 1, items: [{ permission: 'review', user: { id: member.user.id } }] });
      const teams = await t.http
        .get(`/v1/collections/${collection.id}/permissions/teams`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(teams, 'listTeamPermissionsInCollection');
      // A grant on a collection is not a grant on a space: the team's space count stays 0.
      expect(teams.body).toMatchObject({ count: 1, items: [{ permission: 'review', team: { id: team.id, members: 1, spaces: 0 } }] });
    });

    it('accepts 100 teams and refuses 101, and refuses a role that is not one', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const team = await createTeam(t, org);
      await invite(collection.id, org.admin, { role: 'read', teams: Array(100).fill(team.id) }).expect(204);
      expectErrorEnvelope(await invite(collection.id, org.admin, { role: 'read', teams: Array(101).fill(team.id) }), 400, /teams/);
      expectErrorEnvelope(await invite(collection.id, org.admin, { role: 'guest', teams: [team.id] }), 400, /role/);
    });
  });

  describe('PATCH and DELETE /v1/collections/{collectionId}/permissions/users/{userId} and /teams/{teamId}', () => {
    it('change and remove grants, with 401, 403, 404 as on the collection', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const guest = await addMember(t, org, null);
      const team = await createTeam(t, org);
      await invite(collection.id, org.admin, { role: 'read', users: [guest.user.id], teams: [team.id] }).expect(204);
      const userPath = `/v1/collections/${collection.id}/permissions/users/${guest.user.id}`;
      const teamPath = `/v1/collections/${collection.id}/permissions/teams/${team.id}`;

      await expectRefused(() => t.http.patch(userPath).send({ role: 'admin' }), [null, 401], [guest, 403]);
      await expectRefused(() => t.http.delete(teamPath), [await createUser(t), 404]);

      await t.http
        .patch(userPath)
        .set(...org.admin.auth)
        .send({ role: 'create' })
        .expect(204);
      expect(await collectionPermissions(collection.id, guest)).toMatchObject({ view: true, create: true });
      await t.http
        .patch(teamPath)
        .set(...org.admin.auth)
        .send({ role: 'edit' })
        .expect(204);
      await t.http
        .delete(userPath)
        .set(...org.admin.auth)
        .expect(204);
      await t.http
        .delete(teamPath)
        .set(...org.admin.auth)
        .expect(204);
      expect(await collectionPermissions(collection.id, guest)).toBe(403);
      expectErrorEnvelope(await t.http.delete(userPath).set(...org.admin.auth), 404);
      expectErrorEnvelope(
        await t.http
          .patch(teamPath)
          .set(...org.admin.auth)
          .send({ role: 'read' }),
        404,
      );
    });

    it('walk grant lists page by page, each grant once', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const users: string[] = [];
      for (let i = 0; i < 5; i++) {
        const member = await addMember(t, org, 'read');
        await invite(collection.id, org.admin, { role: 'read', users: [member.user.id] }).expect(204);
        users.push(member.user.id);
      }
      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = await t.http
          .get(`/v1/collections/${collection.id}/permissions/users`)
          .query({ limit: 2, ...(page ? { page } : {}) })
          .set(...org.admin.auth)
          .expect(200);
        expect(res.body.count).toBe(5);
        seen.push(...res.body.items.map((item: { user: { id: string } }) => item.user.id));
        page = res.body.next?.page;
        pages++;
      } while (page);
      expect(seen).toEqual(users);
      expect(pages).toBe(3);
    });
  });
});
