import { SpaceAccessService } from '../../src/modules/access/space-access.service';
import { expectRefused } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTeam } from '../support/org-admin-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('space permissions', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const invite = (spaceId: string, actor: Actor, body: object) =>
    t.http
      .post(`/v1/spaces/${spaceId}/permissions`)
      .set(...actor.auth)
      .send(body);
  const permissionsOf = async (spaceId: string, actor: Actor) => {
    const res = await t.http.get(`/v1/spaces/${spaceId}`).set(...actor.auth);
    return res.status === 200 ? res.body.permissions : res.status;
  };

  describe('the effective level', () => {
    it('is the organization role for members, and nothing for a guest without a grant', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expect(await permissionsOf(space.id, await addMember(t, org, 'edit'))).toMatchObject({ view: true, edit: true, review: false, admin: false });
      expect(await permissionsOf(space.id, await addMember(t, org, 'review'))).toMatchObject({ edit: true, review: true, merge: true, admin: false });
      expect(await permissionsOf(space.id, await addMember(t, org, null))).toBe(403);
    });

    it('rises with the default level of the space and of every collection above it, for members only', async () => {
      const org = await createOrganization(t);
      const outer = await createCollection(t, org);
      const inner = await createCollection(t, org, { parent: outer.id });
      const space = await createSpace(t, org, { parent: inner.id });
      const reader = await addMember(t, org, 'read');
      const guest = await addMember(t, org, null);

      await t.http
        .patch(`/v1/collections/${outer.id}`)
        .set(...org.admin.auth)
        .send({ defaultLevel: 'review' })
        .expect(200);
      expect(await permissionsOf(space.id, reader)).toMatchObject({ review: true, admin: false });
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ defaultLevel: 'admin' })
        .expect(200);
      expect(await permissionsOf(space.id, reader)).toMatchObject({ admin: true });
      // A default level never reaches a guest.
      expect(await permissionsOf(space.id, guest)).toBe(403);
      // The highest wins: a lower default level does not take a member's role away.
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ defaultLevel: 'read' })
        .expect(200);
      expect(await permissionsOf(space.id, org.admin)).toMatchObject({ admin: true });
    });

    it("reaches a guest through a team's grant on a parent collection", async () => {
      const org = await createOrganization(t);
      const parent = await createCollection(t, org);
      const child = await createCollection(t, org, { parent: parent.id });
      const space = await createSpace(t, org, { parent: child.id });
      const elsewhere = await createSpace(t, org);
      const guest = await addMember(t, org, null);
      const team = await createTeam(t, org, { members: [guest] });
      expect(await permissionsOf(space.id, guest)).toBe(403);

      await t.http
        .post(`/v1/collections/${parent.id}/permissions`)
        .set(...org.admin.auth)
        .send({ role: 'edit', teams: [team.id] })
        .expect(204);
      expect(await permissionsOf(space.id, guest)).toMatchObject({ view: true, comment: true, edit: true, review: false, admin: false });
      expect(await permissionsOf(elsewhere.id, guest)).toBe(403);
      const listed = await t.http
        .get(`/v1/orgs/${org.id}/spaces`)
        .set(...guest.auth)
        .expect(200);
      expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([space.id]);

      // A direct grant above the team's wins, and the level falls back when it goes.
      await invite(space.id, org.admin, { role: 'admin', users: [guest.user.id] }).expect(204);
      expect(await permissionsOf(space.id, guest)).toMatchObject({ admin: true });
      await t.http
        .delete(`/v1/spaces/${space.id}/permissions/users/${guest.user.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect(await permissionsOf(space.id, guest)).toMatchObject({ edit: true, admin: false });
    });

    it('locks content changes for everyone while editMode is locked, for the modules that write content', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const access = t.app.get(SpaceAccessService);
      await expect(access.require(org.admin.user, space.id, 'edit')).resolves.toMatchObject({ level: 'admin' });
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ editMode: 'locked' })
        .expect(200);
      for (const action of ['edit', 'merge', 'triggerGitSync'] as const) {
        await expect(access.require(org.admin.user, space.id, action)).rejects.toMatchObject({
          code: 'space.locked',
          message: expect.stringMatching(/locked/),
        });
      }
      await expect(access.require(org.admin.user, space.id, 'comment')).resolves.toMatchObject({ permissions: { comment: true } });
      const reader = await addMember(t, org, 'read');
      await expect(access.require(reader.user, space.id, 'edit')).rejects.toMatchObject({ code: 'space.action_forbidden' });
      await expect(access.resolve((await createUser(t)).user, space.id)).rejects.toMatchObject({
        code: 'space.not_found',
        message: expect.stringMatching(/not found/),
      });
    });
  });

  describe('POST /v1/spaces/{spaceId}/permissions', () => {
    it('requires authentication, answers 404 outside the organization and 403 below admin', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const member = await addMember(t, org, 'read');
      expectErrorEnvelope(await t.http.post(`/v1/spaces/${space.id}/permissions`).send({ role: 'read', users: [member.user.id] }), 401);
      const res = await invite(space.id, await createUser(t), { role: 'read', users: [member.user.id] });
      expectErrorEnvelope(res, 404);
      expectContract(res, 'inviteToSpace');
      expectErrorEnvelope(await invite(space.id, await addMember(t, org, 'create'), { role: 'read', users: [member.user.id] }), 403);
    });

    it('grants users and teams at once, and changes the role of an existing grant', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const [one, two] = [await addMember(t, org, null), await addMember(t, org, 'read')];
      const team = await createTeam(t, org);
      const res = await invite(space.id, org.admin, { role: 'comment', users: [one.user.id, two.user.id, one.user.id], teams: [team.id] }).expect(204);
      expect(res.text).toBe('');
      await invite(space.id, org.admin, { role: 'review', users: [one.user.id] }).expect(204);
      const users = await t.http
        .get(`/v1/spaces/${space.id}/permissions/users`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(users, 'listUserPermissionsInSpace');
      expect(users.body.items.map((item: { user: { id: string }; permission: string }) => [item.user.id, item.permission])).toEqual([
        [one.user.id, 'review'],
        [two.user.id, 'comment'],
      ]);
      expect(users.body.items[0].user).toMatchObject({
        object: 'user',
        email: one.user.email,
        urls: { location: `http://quire.test/v1/users/${one.user.id}` },
      });
      const teams = await t.http
        .get(`/v1/spaces/${space.id}/permissions/teams`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(teams, 'listTeamPermissionsInSpace');
      expect(teams.body).toEqual({
        items: [
          {
            permission: 'comment',
            team: {
              object: 'team',
              id: team.id,
              title: team.title,
              members: 0,
              spaces: 1,
              createdAt: expect.any(String),
              permissions: { admin: true, view: true },
            },
          },
        ],
        count: 1,
      });
    });

    it('writes nothing when one user or team is not in the organization (404)', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const member = await addMember(t, org, 'read');
      const stranger = await createUser(t);
      const foreignTeam = await createTeam(t, await createOrganization(t));
      expectErrorEnvelope(await invite(space.id, org.admin, { role: 'edit', users: [member.user.id, stranger.user.id] }), 404, /users/);
      expectErrorEnvelope(await invite(space.id, org.admin, { role: 'edit', users: [member.user.id], teams: [foreignTeam.id] }), 404, /teams/);
      const users = await t.http
        .get(`/v1/spaces/${space.id}/permissions/users`)
        .set(...org.admin.auth)
        .expect(200);
      expect(users.body.count).toBe(0);
    });

    it('accepts 100 users and refuses 101', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const member = await addMember(t, org, 'read');
      await invite(space.id, org.admin, { role: 'read', users: Array(100).fill(member.user.id) }).expect(204);
      expectErrorEnvelope(await invite(space.id, org.admin, { role: 'read', users: Array(101).fill(member.user.id) }), 400, /users/);
    });

    it.each([
      ['no users nor teams', { role: 'read' }, /users/],
      ['an empty list of users', { role: 'read', users: [] }, /users/],
      ['a missing role', { users: ['u1'] }, /role/],
      ['a null role', { role: null, users: ['u1'] }, /role/],
      ['an unknown role', { role: 'owner', users: ['u1'] }, /role/],
      ['a malformed id', { role: 'read', teams: ['a b'] }, /teams/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expectErrorEnvelope(await invite(space.id, org.admin, body), 400, field);
    });
  });

  describe('GET /v1/spaces/{spaceId}/permissions/users and /teams', () => {
    async function walk(org: OrgFixture, path: string, operationId: string): Promise<string[]> {
      const ids: string[] = [];
      let page: string | undefined;
      do {
        const res = await t.http
          .get(path)
          .query({ limit: 2, ...(page ? { page } : {}) })
          .set(...org.admin.auth)
          .expect(200);
        expectContract(res, operationId);
        ids.push(...res.body.items.map((item: { user?: { id: string }; team?: { id: string } }) => (item.user ?? item.team)?.id));
        page = res.body.next?.page;
      } while (page);
      return ids;
    }

    it('walk every grant once, oldest first', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const users: string[] = [];
      const teams: string[] = [];
      for (let i = 0; i < 5; i++) {
        const member = await addMember(t, org, 'read');
        await invite(space.id, org.admin, { role: 'edit', users: [member.user.id] }).expect(204);
        users.push(member.user.id);
        const team = await createTeam(t, org);
        await invite(space.id, org.admin, { role: 'read', teams: [team.id] }).expect(204);
        teams.push(team.id);
      }
      expect(await walk(org, `/v1/spaces/${space.id}/permissions/users`, 'listUserPermissionsInSpace')).toEqual(users);
      expect(await walk(org, `/v1/spaces/${space.id}/permissions/teams`, 'listTeamPermissionsInSpace')).toEqual(teams);
    });

    it('require authentication, answer 404 outside the organization and 403 below admin', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      for (const list of ['users', 'teams']) {
        const path = `/v1/spaces/${space.id}/permissions/${list}`;
        await expectRefused(() => t.http.get(path), [null, 401]);
        await expectRefused(() => t.http.get(path), [await createUser(t), 404]);
        await expectRefused(() => t.http.get(path), [await addMember(t, org, 'create'), 403]);
      }
    });
  });

  describe('PATCH and DELETE /v1/spaces/{spaceId}/permissions/users/{userId} and /teams/{teamId}', () => {
    it('change and remove a grant; 404 for a grant that does not exist', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const guest = await addMember(t, org, null);
      const team = await createTeam(t, org);
      await invite(space.id, org.admin, { role: 'read', users: [guest.user.id], teams: [team.id] }).expect(204);
      const userPath = `/v1/spaces/${space.id}/permissions/users/${guest.user.id}`;
      const teamPath = `/v1/spaces/${space.id}/permissions/teams/${team.id}`;

      await t.http
        .patch(userPath)
        .set(...org.admin.auth)
        .send({ role: 'edit' })
        .expect(204);
      expect(await permissionsOf(space.id, guest)).toMatchObject({ edit: true });
      await t.http
        .patch(teamPath)
        .set(...org.admin.auth)
        .send({ role: 'admin' })
        .expect(204);
      const teams = await t.http
        .get(`/v1/spaces/${space.id}/permissions/teams`)
        .set(...org.admin.auth)
        .expect(200);
      expect(teams.body.items[0].permission).toBe('admin');

      await t.http
        .delete(userPath)
        .set(...org.admin.auth)
        .expect(204);
      expect(await permissionsOf(space.id, guest)).toBe(403);
      await t.http
        .delete(teamPath)
        .set(...org.admin.auth)
        .expect(204);
      for (const path of [userPath, teamPath]) {
        expectErrorEnvelope(await t.http.delete(path).set(...org.admin.auth), 404);
        expectErrorEnvelope(
          await t.http
            .patch(path)
            .set(...org.admin.auth)
            .send({ role: 'read' }),
          404,
        );
      }
    });

    it('require authentication, admin (403) and the organization (404), and a valid role (400)', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const member = await addMember(t, org, 'read');
      await invite(space.id, org.admin, { role: 'read', users: [member.user.id] }).expect(204);
      const path = `/v1/spaces/${space.id}/permissions/users/${member.user.id}`;
      await expectRefused(() => t.http.patch(path).send({ role: 'edit' }), [null, 401]);
      await expectRefused(() => t.http.delete(path), [null, 401]);
      await expectRefused(() => t.http.patch(path).send({ role: 'admin' }), [member, 403]);
      await expectRefused(() => t.http.delete(path), [await createUser(t), 404]);
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ role: 'boss' }),
        400,
        /role/,
      );
    });
  });
});

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
