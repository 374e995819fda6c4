import { Team } from '../../src/modules/teams/team.entity';
import { TeamMember } from '../../src/modules/teams/team-member.entity';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { addToTeam, createSpace, createTeam, expectLimitUpTo1000, grantSpace, TeamFixture, walkList } from '../support/org-admin-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('teams', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const teams = (org: OrgFixture) => `/v1/orgs/${org.id}/teams`;
  const team = (org: OrgFixture, teamId: string) => `${teams(org)}/${teamId}`;
  const teamCount = (org: OrgFixture) => t.dataSource.getRepository(Team).countBy({ organizationId: org.id });

  describe('PUT /v1/orgs/{organizationId}/teams', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.put(teams(org)).send({ title: 'Docs' }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403, after: async (org) => expect(await teamCount(org)).toBe(0) },
    });

    it('creates a team with its initial members', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await addMember(t, org, 'read'), await addMember(t, org, 'edit')];
      const res = await t.http
        .put(teams(org))
        .set(...org.admin.auth)
        .send({ title: 'Writers', members: [a.user.id, b.user.email.toUpperCase(), a.user.id] })
        .expect(201);
      expectContract(res, 'createOrganizationTeam');
      expect(res.body).toEqual({
        object: 'team',
        id: expect.any(String),
        title: 'Writers',
        members: 2,
        spaces: 0,
        createdAt: expect.any(String),
        permissions: { admin: true, view: true },
      });
      const roles = await t.dataSource.getRepository(TeamMember).findBy({ teamId: res.body.id });
      expect(roles.map((row) => row.role)).toEqual(['member', 'member']);
    });

    it('accepts a title of 64 characters and refuses 65', async () => {
      const org = await createOrganization(t);
      const ok = await t.http
        .put(teams(org))
        .set(...org.admin.auth)
        .send({ title: 'a'.repeat(64) })
        .expect(201);
      expect(ok.body.title).toBe('a'.repeat(64));
      expectErrorEnvelope(
        await t.http
          .put(teams(org))
          .set(...org.admin.auth)
          .send({ title: 'a'.repeat(65) }),
        400,
        /title/,
      );
    });

    it.each([
      ['an empty title', { title: '' }, /title/],
      ['a blank title', { title: '   ' }, /title/],
      ['a missing title', {}, /title/],
      ['members that are not strings', { title: 'T', members: [1] }, /members/],
      ['1001 members', { title: 'T', members: Array.from({ length: 1001 }, (_, i) => `u${i}`) }, /members/],
      ['an unknown field', { title: 'T', color: 'red' }, /color/],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .put(teams(org))
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });

    it('refuses members outside the organization with 400 and creates nothing', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .put(teams(org))
        .set(...org.admin.auth)
        .send({ title: 'T', members: [reader.user.id, other.admin.user.id, 'nobody'] });
      expectErrorEnvelope(res, 400, /members: not members of the organization: .*nobody/);
      expect(await teamCount(org)).toBe(0);
    });
  });

  describe('GET /v1/orgs/{organizationId}/teams', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(teams(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists teams with counts and the permissions of the caller, oldest first', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const first = await createTeam(t, org, { members: [reader] });
      const owned = await createTeam(t, org, { owners: [reader] });
      await createTeam(t, await createOrganization(t)); // another organization's
      const res = await t.http
        .get(teams(org))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listTeamsInOrganizationById');
      expect(res.body.count).toBe(2);
      expect(res.body.items.map((item: any) => [item.id, item.members, item.permissions])).toEqual([
        [first.id, 1, { admin: false, view: true }],
        [owned.id, 1, { admin: true, view: true }],
      ]);
    });

    it('filters by a case-insensitive substring of the title', async () => {
      const org = await createOrganization(t);
      const docs = await createTeam(t, org, { title: 'Docs Writers' });
      await createTeam(t, org, { title: 'Support' });
      const percent = await createTeam(t, org, { title: '100% Team' });
      const search = async (title: string) =>
        (
          await t.http
            .get(teams(org))
            .query({ title })
            .set(...org.admin.auth)
            .expect(200)
        ).body.items.map((item: { id: string }) => item.id);
      expect(await search('WRITERS')).toEqual([docs.id]);
      expect(await search('%')).toEqual([percent.id]);
      expect(await search('nothing')).toEqual([]);
    });

    it('filters by owner: the teams that member can manage', async () => {
      const org = await createOrganization(t);
      const owner = await addMember(t, org, 'read');
      const mine = await createTeam(t, org, { owners: [owner] });
      const memberOnly = await createTeam(t, org, { members: [owner] });
      const other = await createTeam(t, org);
      const list = async (ownerId: string) =>
        (
          await t.http
            .get(teams(org))
            .query({ owner: ownerId })
            .set(...org.admin.auth)
            .expect(200)
        ).body.items.map((item: { id: string }) => item.id);
      expect(await list(owner.user.id)).toEqual([mine.id]);
      expect(await list(org.admin.user.id)).toEqual([mine.id, memberOnly.id, other.id]);
      expect(await list('nobody')).toEqual([]);
    });

    it('walks every team exactly once', async () => {
      const org = await createOrganization(t);
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await createTeam(t, org)).id);
      const walk = await walkList(t, teams(org), org.admin, { limit: 2 }, (res) => expectContract(res, 'listTeamsInOrganizationById'));
      expect(walk).toEqual({ ids: created, pages: 3, count: 5 });
    });

    it('accepts limit=1000 and refuses limit=1001', async () => {
      const org = await createOrganization(t);
      await expectLimitUpTo1000(t, teams(org), org.admin);
    });
  });

  describe('GET /v1/orgs/{organizationId}/teams/{teamId}', () => {
    itChecksAccess(() => t, {
      given: (org, guest) => createTeam(t, org, guest && { members: [guest] }),
      request: (org, created) => t.http.get(team(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: "answers 404 to a caller from another organization, and for another organization's team",
        also: async (org, created) => {
          const other = await createOrganization(t);
          await expectRefused(() => t.http.get(team(other, created.id)), [other.admin, 404]);
          await expectRefused(() => t.http.get(team(org, 'nope')), [org.admin, 404]);
        },
      },
      member: { role: null, status: 403 },
    });

    it('answers the team with live member and space counts', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      const created = await createTeam(t, org, { members: [a, b] });
      await grantSpace(t, org, await createSpace(t, org), { teamId: created.id });
      await grantSpace(t, org, await createSpace(t, org), { teamId: created.id });
      await grantSpace(t, org, await createSpace(t, org, { deleted: true }), { teamId: created.id });
      await grantSpace(t, org, await createSpace(t, org), { userId: a.user.id }); // a's own, not the team's
      const res = await t.http
        .get(team(org, created.id))
        .set(...a.auth)
        .expect(200);
      expectContract(res, 'getTeamInOrganizationById');
      expect(res.body).toMatchObject({ id: created.id, members: 2, spaces: 2, permissions: { admin: false, view: true } });
    });
  });

  describe('PATCH /v1/orgs/{organizationId}/teams/{teamId}', () => {
    const rename = (org: OrgFixture, id: string, title = 'New') => t.http.patch(team(org, id)).send({ title });
    itChecksAccess(() => t, {
      given: (org) => createTeam(t, org),
      request: (org, created) => rename(org, created.id),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown team',
        also: (org) => expectRefused(() => rename(org, 'nope'), [org.admin, 404]),
      },
    });

    it('refuses a team owner who is not an admin with 403', async () => {
      const org = await createOrganization(t);
      const owner = await addMember(t, org, 'create');
      const created = await createTeam(t, org, { owners: [owner] });
      await expectRefused(() => rename(org, created.id, 'Mine'), [owner, 403]);
    });

    it('renames the team; 64 characters are accepted and 65 refused', async () => {
      const org = await createOrganization(t);
      const created = await createTeam(t, org);
      const res = await t.http
        .patch(team(org, created.id))
        .set(...org.admin.auth)
        .send({ title: 'b'.repeat(64) })
        .expect(200);
      expectContract(res, 'updateTeamInOrganizationById');
      expect(res.body).toMatchObject({ id: created.id, title: 'b'.repeat(64) });
      expectErrorEnvelope(
        await t.http
          .patch(team(org, created.id))
          .set(...org.admin.auth)
          .send({ title: 'c'.repeat(65) }),
        400,
        /title/,
      );
      expectErrorEnvelope(
        await t.http
          .patch(team(org, created.id))
          .set(...org.admin.auth)
          .send({}),
        400,
        /title/,
      );
      expect((await t.http.get(team(org, created.id)).set(...org.admin.auth)).body.title).toBe('b'.repeat(64));
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/teams/{teamId}', () => {
    itChecksAccess(() => t, {
      given: (org, owner) => createTeam(t, org, owner && { owners: [owner] }),
      request: (org, created) => t.http.delete(team(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown team',
        also: (org) => expectRefused(() => t.http.delete(team(org, 'nope')), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('deletes the team with its memberships and grants', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const created = await createTeam(t, org, { members: [reader] });
      await grantSpace(t, org, await createSpace(t, org), { teamId: created.id });
      const res = await t.http
        .delete(team(org, created.id))
        .set(...org.admin.auth)
        .expect(204);
      expect(res.text).toBe('');
      expectErrorEnvelope(await t.http.get(team(org, created.id)).set(...org.admin.auth), 404);
      expect(await t.dataSource.getRepository(TeamMember).countBy({ teamId: created.id })).toBe(0);
      const member = await t.http
        .get(`/v1/orgs/${org.id}/members/${reader.user.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(member.body).toMatchObject({ teams: 0, spaces: 0 });
    });
  });

  describe('organization permissions.ownTeam', () => {
    it('is true for a member who owns a team of the organization', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const created = await createTeam(t, org, { members: [reader] });
      const before = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...reader.auth)
        .expect(200);
      expect(before.body.permissions.ownTeam).toBe(false);
      await addToTeam(t, org, created.id, reader, 'owner');
      const after = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(after, 'getOrganizationById');
      expect(after.body.permissions.ownTeam).toBe(true);
      const list = await t.http
        .get('/v1/orgs')
        .set(...reader.auth)
        .expect(200);
      expect(list.body.items.map((item: any) => [item.id, item.permissions.ownTeam])).toEqual([[org.id, true]]);
    });
  });
});

describe('team members', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const teamMembers = (org: OrgFixture, team: TeamFixture | string) => `/v1/orgs/${org.id}/teams/${typeof team === 'string' ? team : team.id}/members`;
  const teamMember = (org: OrgFixture, team: TeamFixture | string, user: Actor | string) =>
    `${teamMembers(org, team)}/${typeof user === 'string' ? user : user.user.id}`;
  const outsider = async () => (await createOrganization(t)).admin;
  /** The team's members as user id → role, read from the database. */
  const rolesIn = async (team: TeamFixture) =>
    Object.fromEntries((await t.dataSource.getRepository(TeamMember).findBy({ teamId: team.id })).map((row) => [row.userId, row.role]));

  describe('GET /v1/orgs/{organizationId}/teams/{teamId}/members', () => {
    itChecksAccess(() => t, {
      given: (org, guest) => createTeam(t, org, guest && { members: [guest] }),
      request: (org, team) => t.http.get(teamMembers(org, team)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown team',
        also: (org) => expectRefused(() => t.http.get(teamMembers(org, 'nope')), [org.admin, 404]),
      },
      member: { role: null, status: 403 },
    });

    it('lists team memberships: the organization member, the team role and permissions', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await addMember(t, org, 'read'), await addMember(t, org, 'edit')];
      const team = await createTeam(t, org, { members: [a] });
      await addToTeam(t, org, team.id, b, 'owner');
      const res = await t.http
        .get(teamMembers(org, team))
        .set(...a.auth)
        .expect(200);
      expectContract(res, 'listTeamMembersInOrganizationById');
      expect(res.body.count).toBe(2);
      expect(res.body.items.map((item: any) => [item.organization.id, item.organization.role, item.organization.teams, item.team, item.permissions])).toEqual([
        [a.user.id, 'read', 1, { role: 'member' }, { view: true }],
        [b.user.id, 'edit', 1, { role: 'owner' }, { view: true }],
      ]);
      expect(res.body.items[0].organization).toMatchObject({ object: 'member', user: { id: a.user.id, email: a.user.email } });
    });

    it('walks every member exactly once', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const added: string[] = [];
      for (let i = 0; i < 5; i++) {
        const member = await addMember(t, org, 'read');
        await addToTeam(t, org, team.id, member);
        added.push(member.user.id);
      }
      await addMember(t, org, 'read'); // in the organization, not the team
      const walk = await walkList(t, teamMembers(org, team), org.admin, { limit: 2 }, (res) => expectContract(res, 'listTeamMembersInOrganizationById'));
      expect(walk).toEqual({ ids: added, pages: 3, count: 5 });
    });
  });

  describe('PUT /v1/orgs/{organizationId}/teams/{teamId}/members', () => {
    const change = (org: OrgFixture, team: TeamFixture | string, body: object = { add: [] }) => t.http.put(teamMembers(org, team)).send(body);
    itChecksAccess(() => t, {
      given: (org) => createTeam(t, org),
      request: (org, team) => change(org, team),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown team',
        also: (org) => expectRefused(() => change(org, 'nope'), [org.admin, 404]),
      },
    });

    it('refuses a team member who is not an owner (nor an admin) with 403', async () => {
      const org = await createOrganization(t);
      const [member, other] = [await addMember(t, org, 'create'), await addMember(t, org, 'read')];
      const team = await createTeam(t, org, { members: [member] });
      await expectRefused(() => change(org, team, { add: [other.user.id] }), [member, 403]);
      expect(await rolesIn(team)).toEqual({ [member.user.id]: 'member' });
    });

    it('lets a team owner add by user id or e-mail, set roles and remove, in one request', async () => {
      const org = await createOrganization(t);
      const owner = await addMember(t, org, 'read');
      const [a, b, c, d] = [await addMember(t, org, 'read'), await addMember(t, org, 'read'), await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      const team = await createTeam(t, org, { members: [d], owners: [owner] });
      const res = await t.http
        .put(teamMembers(org, team))
        .set(...owner.auth)
        .send({ add: [a.user.id, b.user.email.toUpperCase()], memberships: { [c.user.id]: { role: 'owner' } }, remove: [d.user.email] })
        .expect(204);
      expect(res.text).toBe('');
      expect(await rolesIn(team)).toEqual({ [owner.user.id]: 'owner', [a.user.id]: 'member', [b.user.id]: 'member', [c.user.id]: 'owner' });
    });

    it('removes a user named in both add and remove', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      const team = await createTeam(t, org, { members: [b] });
      await t.http
        .put(teamMembers(org, team))
        .set(...org.admin.auth)
        .send({ add: [a.user.id, b.user.id], remove: [a.user.email, b.user.id] })
        .expect(204);
      expect(await rolesIn(team)).toEqual({});
    });

    it('keeps the role of a member added again, and changes it only through memberships', async () => {
      const org = await createOrganization(t);
      const owner = await addMember(t, org, 'read');
      const team = await createTeam(t, org, { owners: [owner] });
      await t.http
        .put(teamMembers(org, team))
        .set(...org.admin.auth)
        .send({ add: [owner.user.id] })
        .expect(204);
      expect(await rolesIn(team)).toEqual({ [owner.user.id]: 'owner' });
      await t.http
        .put(teamMembers(org, team))
        .set(...org.admin.auth)
        .send({ memberships: { [owner.user.id]: { role: 'member' } } })
        .expect(204);
      expect(await rolesIn(team)).toEqual({ [owner.user.id]: 'member' });
    });

    it('refuses unknown users with 400 naming them, and changes nothing', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      const stranger = await createUser(t); // exists, but not in this organization
      const team = await createTeam(t, org, { members: [b] });
      const res = await t.http
        .put(teamMembers(org, team))
        .set(...org.admin.auth)
        .send({ add: [a.user.id, stranger.user.email], remove: [b.user.id, 'ghost@example.com'] });
      expectErrorEnvelope(res, 400, new RegExp(`not members of the organization: ${stranger.user.email}, ghost@example.com`));
      expect(await rolesIn(team)).toEqual({ [b.user.id]: 'member' });
      expectErrorEnvelope(
        await t.http
          .put(teamMembers(org, team))
          .set(...org.admin.auth)
          .send({ memberships: { nobody: { role: 'owner' } } }),
        400,
        /nobody/,
      );
    });

    it.each([
      ['add that is not an array', { add: 'u1' }, /add/],
      ['1001 users to add', { add: Array.from({ length: 1001 }, (_, i) => `u${i}`) }, /add/],
      ['a membership role that does not exist', { memberships: { u1: { role: 'admin' } } }, /memberships.*"u1"/],
      ['a membership with extra fields', { memberships: { u1: { role: 'owner', since: 1 } } }, /memberships/],
      ['memberships that are not a map', { memberships: ['u1'] }, /memberships/],
      ['remove with a number', { remove: [1] }, /remove/],
    ])('refuses %s with 400', async (_case, body, message) => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      expectErrorEnvelope(
        await t.http
          .put(teamMembers(org, team))
          .set(...org.admin.auth)
          .send(body),
        400,
        message,
      );
    });
  });

  describe('PUT /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}', () => {
    const setRole = (org: OrgFixture, team: TeamFixture | string, user: Actor, body: object = {}) => t.http.put(teamMember(org, team, user)).send(body);

    it('requires authentication', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      await expectRefused(() => setRole(org, team, org.admin, { role: 'member' }), [null, 401]);
    });

    it('answers 404 to a caller from another organization, for an unknown team and for a non-member', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      await expectRefused(() => setRole(org, team, org.admin), [await outsider(), 404]);
      await expectRefused(() => setRole(org, 'nope', org.admin), [org.admin, 404]);
      const stranger = await createUser(t);
      await expectRefused(() => setRole(org, team, stranger), [org.admin, 404]);
    });

    it('refuses a member who is neither admin nor owner with 403', async () => {
      const org = await createOrganization(t);
      const member = await addMember(t, org, 'create');
      const team = await createTeam(t, org, { members: [member] });
      await expectRefused(() => setRole(org, team, member, { role: 'owner' }), [member, 403]);
    });

    it('adds a member (as member by default) and changes their role', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const team = await createTeam(t, org);
      await t.http
        .put(teamMember(org, team, reader))
        .set(...org.admin.auth)
        .send({})
        .expect(204);
      expect(await rolesIn(team)).toEqual({ [reader.user.id]: 'member' });
      await t.http
        .put(teamMember(org, team, reader))
        .set(...org.admin.auth)
        .send({ role: 'owner' })
        .expect(204);
      expect(await rolesIn(team)).toEqual({ [reader.user.id]: 'owner' });
      await t.http
        .put(teamMember(org, team, reader))
        .set(...org.admin.auth)
        .send({})
        .expect(204);
      expect(await rolesIn(team)).toEqual({ [reader.user.id]: 'owner' });
    });

    it('refuses an unknown role with 400', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      expectErrorEnvelope(
        await t.http
          .put(teamMember(org, team, org.admin))
          .set(...org.admin.auth)
          .send({ role: 'admin' }),
        400,
        /role/,
      );
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}', () => {
    itChecksAccess(() => t, {
      given: (org) => createTeam(t, org),
      request: (org, team) => t.http.delete(teamMember(org, team, org.admin)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, for an unknown team and for a non-member',
        also: async (org, team) => {
          await expectRefused(() => t.http.delete(teamMember(org, 'nope', org.admin)), [org.admin, 404]);
          await expectRefused(() => t.http.delete(teamMember(org, team, 'nobody')), [org.admin, 404]);
        },
      },
    });

    it('refuses a member who is neither admin nor owner with 403', async () => {
      const org = await createOrganization(t);
      const [member, other] = [await addMember(t, org, 'create'), await addMember(t, org, 'read')];
      const team = await createTeam(t, org, { members: [member, other] });
      await expectRefused(() => t.http.delete(teamMember(org, team, other)), [member, 403]);
    });

    it('answers 205 when it removed the member and 204 when they were not in the team', async () => {
      const org = await createOrganization(t);
      const [owner, reader] = [await addMember(t, org, 'read'), await addMember(t, org, 'read')];
      const team = await createTeam(t, org, { members: [reader], owners: [owner] });
      const removed = await t.http
        .delete(teamMember(org, team, reader))
        .set(...owner.auth)
        .expect(205);
      expect(removed.text).toBe('');
      expect(await rolesIn(team)).toEqual({ [owner.user.id]: 'owner' });
      await t.http
        .delete(teamMember(org, team, reader))
        .set(...owner.auth)
        .expect(204);
    });
  });

  describe('GET /v1/orgs/{organizationId}/members/{userId}/teams', () => {
    const memberTeams = (org: OrgFixture, user: Actor | string) => `/v1/orgs/${org.id}/members/${typeof user === 'string' ? user : user.user.id}/teams`;

    itChecksAccess(() => t, {
      // The admin's teams; the guest of the 403 check asks for their own.
      request: (org, _, guest) => t.http.get(memberTeams(org, guest ?? org.admin)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for a non-member',
        also: (org) => expectRefused(() => t.http.get(memberTeams(org, 'nobody')), [org.admin, 404]),
      },
      member: { role: null, status: 403 },
    });

    it("lists the member's teams with their role in each, filtered by title", async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const writers = await createTeam(t, org, { title: 'Writers', members: [reader] });
      const reviewers = await createTeam(t, org, { title: 'Reviewers', owners: [reader] });
      await createTeam(t, org, { title: 'Writers too' }); // reader is not in it
      const res = await t.http
        .get(memberTeams(org, reader))
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'listTeamsForOrganizationMember');
      expect(res.body.items.map((item: any) => [item.team.id, item.team.members, item.member])).toEqual([
        [writers.id, 1, { role: 'member' }],
        [reviewers.id, 1, { role: 'owner' }],
      ]);
      const filtered = await t.http
        .get(memberTeams(org, reader))
        .query({ title: 'WRIT' })
        .set(...org.admin.auth)
        .expect(200);
      expect(filtered.body).toMatchObject({ count: 1, items: [{ team: { id: writers.id } }] });
      const asSelf = await t.http
        .get(memberTeams(org, reader))
        .set(...reader.auth)
        .expect(200);
      expect(asSelf.body.items.map((item: any) => item.team.permissions)).toEqual([
        { admin: false, view: true },
        { admin: true, view: true },
      ]);
    });

    it('walks every team of the member exactly once', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const joined: string[] = [];
      for (let i = 0; i < 5; i++) joined.push((await createTeam(t, org, { members: [reader] })).id);
      const walk = await walkList(t, memberTeams(org, reader), org.admin, { limit: 2 }, (res) => expectContract(res, 'listTeamsForOrganizationMember'));
      expect(walk).toEqual({ ids: joined, pages: 3, count: 5 });
    });
  });
});
