import { Actor, OrgFixture, addMember, createOrganization, createUser, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { TestApp, createTestApp } from '../support/test-app';
import {
  TeamFixture,
  addToTeam,
  createSpace,
  createTeam,
  expectLimitUpTo1000,
  grantSpace,
  selfSignedCertificatePem,
  setLastSeen,
  walkList,
} from '../support/org-admin-builders';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { createSite } from '../support/site-builders';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { UsersService } from '../../src/modules/users/users.service';
import { TokensService } from '../../src/modules/tokens/tokens.service';
import { captureLogs } from '../support/log-capture';
import { jwtVerify } from 'jose';
import { ServerSecret } from '../../src/modules/members/server-secret.entity';
import { VISITOR_CLAIMS_SECRET } from '../../src/modules/members/visitor-claims.service';
import { PermissionGrant } from '../../src/modules/access/permission-grant.entity';
import { TeamMember } from '../../src/modules/teams/team-member.entity';
import { createCollection, createSpace as createSpaceIn } from '../support/space-builders';
import { Team } from '../../src/modules/teams/team.entity';

describe('users', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('requires authentication', async () => {
    expectErrorEnvelope(await t.http.get('/v1/users/anyone'), 401);
  });

  it('shows a user who shares an organization', async () => {
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'read');
    const res = await t.http
      .get(`/v1/users/${member.user.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expectContract(res, 'getUserById');
    expect(res.body.id).toBe(member.user.id);
  });

  it('answers 404 for a user in no shared organization', async () => {
    const org = await createOrganization(t);
    const stranger = await createUser(t);
    expectErrorEnvelope(await t.http.get(`/v1/users/${stranger.user.id}`).set(...org.admin.auth), 404);
  });
});

/** A caller whose only tie to a user is a guest membership sees that user without `email` (user.policy.ts). */
describe('privacy of e-mail addresses', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const get = (path: string, actor: Actor) => t.http.get(path).set(...actor.auth);

  it('GET /v1/users/{id}: a guest sees a co-member without e-mail; a member sees it; anyone sees their own', async () => {
    const org = await createOrganization(t);
    const guest = await addMember(t, org, null);
    const reader = await addMember(t, org, 'read');

    const seenByGuest = await get(`/v1/users/${reader.user.id}`, guest).expect(200);
    expectContract(seenByGuest, 'getUserById');
    expect(seenByGuest.body).not.toHaveProperty('email');
    expect(seenByGuest.body).toMatchObject({ id: reader.user.id, displayName: reader.user.displayName });
    const adminSeenByGuest = await get(`/v1/users/${org.admin.user.id}`, guest).expect(200);
    expect(adminSeenByGuest.body).not.toHaveProperty('email');

    const seenByReader = await get(`/v1/users/${guest.user.id}`, reader).expect(200);
    expectContract(seenByReader, 'getUserById');
    expect(seenByReader.body.email).toBe(guest.user.email);

    expect((await get(`/v1/users/${guest.user.id}`, guest).expect(200)).body.email).toBe(guest.user.email);
    expect((await get('/v1/user', guest).expect(200)).body.email).toBe(guest.user.email);
  });

  it('a guest who is also a member of another organization sees the e-mails of that organization only', async () => {
    const x = await createOrganization(t);
    const y = await createOrganization(t);
    const caller = await addMember(t, x, null);
    await t.http
      .post(`/v1/orgs/${y.id}/invites`)
      .set(...y.admin.auth)
      .send({ emails: [caller.user.email], role: 'read' })
      .expect(200);
    // The invitation of an existing user waits for them; they accept it with their own token.
    const [invite] = (await get('/v1/user/invites', caller).expect(200)).body.items;
    await t.http
      .post(`/v1/user/invites/${invite.id}/accept`)
      .set(...caller.auth)
      .expect(200);
    const onlyInX = await addMember(t, x, 'edit');
    expect((await get(`/v1/users/${onlyInX.user.id}`, caller).expect(200)).body).not.toHaveProperty('email');
    expect((await get(`/v1/users/${y.admin.user.id}`, caller).expect(200)).body.email).toBe(y.admin.user.email);
    // A user in both organizations: the caller's member tie (in y) wins over the guest tie (in x).
    const inBoth = await addMember(t, y, 'read');
    await t.http
      .post(`/v1/orgs/${x.id}/invites`)
      .set(...x.admin.auth)
      .send({ emails: [inBoth.user.email] })
      .expect(200);
    const [invite2] = (await get('/v1/user/invites', inBoth).expect(200)).body.items;
    await t.http
      .post(`/v1/user/invites/${invite2.id}/accept`)
      .set(...inBoth.auth)
      .expect(200);
    expect((await get(`/v1/users/${inBoth.user.id}`, caller).expect(200)).body.email).toBe(inBoth.user.email);
  });

  it('members: a member sees e-mails in the list and in each member; a guest sees their own and cannot list', async () => {
    const org = await createOrganization(t);
    const guest = await addMember(t, org, null);
    const reader = await addMember(t, org, 'read');
    const list = await get(`/v1/orgs/${org.id}/members?limit=10`, reader).expect(200);
    expectContract(list, 'listMembersInOrganizationById');
    expect(list.body.items.map((item: any) => item.user.email).sort()).toEqual([org.admin.user.email, guest.user.email, reader.user.email].sort());
    const one = await get(`/v1/orgs/${org.id}/members/${guest.user.id}`, reader).expect(200);
    expectContract(one, 'getMemberInOrganizationById');
    expect(one.body.user.email).toBe(guest.user.email);
    expect((await get(`/v1/orgs/${org.id}/members/${guest.user.id}`, guest).expect(200)).body.user.email).toBe(guest.user.email);
    expectErrorEnvelope(await get(`/v1/orgs/${org.id}/members`, guest), 403);
    expectErrorEnvelope(await get(`/v1/orgs/${org.id}/members/${reader.user.id}`, guest), 403);
  });

  it('team members: a member sees e-mails; a guest cannot list them', async () => {
    const org = await createOrganization(t);
    const guest = await addMember(t, org, null);
    const reader = await addMember(t, org, 'read');
    const team = await createTeam(t, org, { members: [guest, reader] });
    const list = await get(`/v1/orgs/${org.id}/teams/${team.id}/members`, reader).expect(200);
    expectContract(list, 'listTeamMembersInOrganizationById');
    expect(list.body.items.map((item: any) => item.organization.user.email).sort()).toEqual([guest.user.email, reader.user.email].sort());
    expectErrorEnvelope(await get(`/v1/orgs/${org.id}/teams/${team.id}/members`, guest), 403);
  });

  it('space grants: a guest administering a space sees the other grantees without e-mail; an admin sees them', async () => {
    const org = await createOrganization(t);
    const guest = await addMember(t, org, null);
    const reader = await addMember(t, org, 'read');
    const spaceId = await createSpace(t, org);
    await grantSpace(t, org, spaceId, { userId: guest.user.id }, 'admin');
    await grantSpace(t, org, spaceId, { userId: reader.user.id }, 'read');
    const byGuest = await get(`/v1/spaces/${spaceId}/permissions/users`, guest).expect(200);
    expectContract(byGuest, 'listUserPermissionsInSpace');
    const emails = Object.fromEntries(byGuest.body.items.map((item: any) => [item.user.id, item.user.email]));
    expect(emails).toEqual({ [guest.user.id]: guest.user.email, [reader.user.id]: undefined });
    const byAdmin = await get(`/v1/spaces/${spaceId}/permissions/users`, org.admin).expect(200);
    expect(byAdmin.body.items.map((item: any) => item.user.email).sort()).toEqual([guest.user.email, reader.user.email].sort());
  });
});

describe('organizations', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  describe('POST /v1/orgs', () => {
    it('requires authentication', async () => {
      expectErrorEnvelope(await t.http.post('/v1/orgs').send({ title: 'Docs' }), 401);
    });

    it('creates an organization whose admin is the caller, with a Location header', async () => {
      const actor = await createUser(t);
      const res = await t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .send({ title: 'Acme Docs', emailDomains: ['acme.test'] })
        .expect(201);
      expectContract(res, 'createOrganization');
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${res.body.id}`);
      expect(res.body).toMatchObject({ object: 'organization', title: 'Acme Docs', emailDomains: ['acme.test'], permissions: { admin: true } });
      const got = await t.http
        .get(`/v1/orgs/${res.body.id}`)
        .set(...actor.auth)
        .expect(200);
      expect(got.body.id).toBe(res.body.id);
    });

    it.each([
      ['a title of 1 character', { title: 'A' }, /title/],
      ['a title of 256 characters', { title: 'a'.repeat(256) }, /title/],
      ['a missing title', {}, /title/],
      ['an unknown field', { title: 'Docs', color: 'red' }, /color/],
      ['a bad e-mail domain', { title: 'Docs', emailDomains: ['not a domain'] }, /emailDomains/],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      const actor = await createUser(t);
      expectErrorEnvelope(
        await t.http
          .post('/v1/orgs')
          .set(...actor.auth)
          .send(body),
        400,
        field,
      );
    });

    it('accepts a title of 255 characters', async () => {
      const actor = await createUser(t);
      await t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .send({ title: 'a'.repeat(255) })
        .expect(201);
    });
  });

  describe('GET /v1/orgs/{organizationId}', () => {
    it("reads a member's membership with the token, in one round trip; a stranger still gets 404, a disabled member too", async () => {
      const org = await createOrganization(t);
      const stranger = await createUser(t);
      // A spy that keeps the real method: it only counts the organization guard's own lookups.
      const lookups = jest.spyOn(t.app.get(OrganizationsRepository), 'findMembership');
      try {
        const res = await t.http
          .get(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .expect(200);
        expectContract(res, 'getOrganizationById');
        expect(lookups).not.toHaveBeenCalled();
        await t.http
          .get(`/v1/orgs/${org.id}`)
          .set(...stranger.auth)
          .expect(404);
        expect(lookups).toHaveBeenCalledTimes(1);
      } finally {
        lookups.mockRestore();
      }
      const member = await addMember(t, org, 'read');
      await t.dataSource.query(`UPDATE memberships SET disabled = true WHERE organization_id = $1 AND user_id = $2`, [org.id, member.user.id]);
      await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...member.auth)
        .expect(404);
    });

    it('answers the organization with permissions from the caller role', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const asAdmin = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(asAdmin, 'getOrganizationById');
      expect(asAdmin.body.permissions).toMatchObject({ admin: true, createContent: true, listMembers: true });
      const asReader = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(asReader, 'getOrganizationById');
      expect(asReader.body.permissions).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true });
    });

    it('shows a guest that it may not list members', async () => {
      const org = await createOrganization(t);
      const guest = await addMember(t, org, null);
      const res = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...guest.auth)
        .expect(200);
      expect(res.body.permissions).toMatchObject({ view: true, listMembers: false, listTeams: false });
    });

    it('answers 404 to a caller outside the organization', async () => {
      const org = await createOrganization(t);
      const outsider = await createUser(t);
      const res = await t.http.get(`/v1/orgs/${org.id}`).set(...outsider.auth);
      expectErrorEnvelope(res, 404);
      expectContract(res, 'getOrganizationById');
    });

    it('answers 404 for an organization that does not exist', async () => {
      const actor = await createUser(t);
      expectErrorEnvelope(await t.http.get('/v1/orgs/nope').set(...actor.auth), 404);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}', () => {
    it('lets an admin update the organization', async () => {
      const org = await createOrganization(t);
      const hostname = unique('h').slice(0, 20);
      const res = await t.http
        .patch(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .send({ title: 'Renamed', hostname, defaultRole: 'read', inviteLinks: true, logo: 'https://cdn.test/logo.png' })
        .expect(200);
      expectContract(res, 'updateOrganizationById');
      expect(res.body).toMatchObject({ title: 'Renamed', hostname, defaultRole: 'read', inviteLinks: true, urls: { logo: 'https://cdn.test/logo.png' } });
      const cleared = await t.http
        .patch(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .send({ defaultRole: null, logo: null })
        .expect(200);
      expect(cleared.body.defaultRole).toBeNull();
      expect(cleared.body.urls.logo).toBeUndefined();
    });

    it('sets the default site (`defaultContent`), only to a site of the organization, and clears it', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      const site = await createSite(t, org);
      const foreign = await createSite(t, other);
      const patch = (body: object) =>
        t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send(body);
      const set = await patch({ defaultContent: { type: 'site', site: site.id } }).expect(200);
      expectContract(set, 'updateOrganizationById');
      expect(set.body.defaultContent).toEqual({ type: 'site', site: site.id });
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toEqual({ type: 'site', site: site.id });
      expectErrorEnvelope(await patch({ defaultContent: { type: 'site', site: foreign.id } }), 400, /defaultContent.site/);
      expectErrorEnvelope(await patch({ defaultContent: { type: 'space', site: site.id } }), 400, /type/);
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toEqual({ type: 'site', site: site.id });
      const cleared = await patch({ defaultContent: null }).expect(200);
      expect(cleared.body.defaultContent).toBeUndefined();
      await patch({ defaultContent: { type: 'site', site: site.id } }).expect(200);
      await t.http
        .delete(`/v1/orgs/${org.id}/sites/${site.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toBeUndefined();
    });

    const rename = (org: OrgFixture) => t.http.patch(`/v1/orgs/${org.id}`).send({ title: 'Mine' });

    it('refuses a member who is not an admin with 403', async () => {
      const org = await createOrganization(t);
      await expectRefused(() => rename(org), [await addMember(t, org, 'create'), 403]);
    });

    it('answers 409 when the hostname is taken by another organization', async () => {
      const first = await createOrganization(t);
      const second = await createOrganization(t);
      const hostname = unique('taken').slice(0, 20);
      await t.http
        .patch(`/v1/orgs/${first.id}`)
        .set(...first.admin.auth)
        .send({ hostname })
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${second.id}`)
          .set(...second.admin.auth)
          .send({ hostname }),
        409,
      );
    });

    it.each([
      ['an invalid role', { defaultRole: 'owner' }, /defaultRole/],
      ['a hostname with capitals', { hostname: 'Acme' }, /hostname/],
      ['a non-boolean flag', { sso: 'yes' }, /sso/],
      ['a logo that is not a URL', { logo: 'logo.png' }, /logo/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  describe('GET /v1/orgs', () => {
    it('requires authentication', async () => {
      expectErrorEnvelope(await t.http.get('/v1/orgs'), 401);
    });

    it('walks every organization of the caller exactly once, even with inserts during the walk', async () => {
      const actor = await createUser(t);
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await createOrganization(t, { admin: actor })).id);
      await createOrganization(t); // someone else's: never listed

      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = await t.http
          .get('/v1/orgs')
          .query({ limit: 3, ...(page ? { page } : {}) })
          .set(...actor.auth)
          .expect(200);
        expectContract(res, 'listOrganizationsForAuthenticatedUser');
        seen.push(...res.body.items.map((item: { id: string }) => item.id));
        if (pages === 0) {
          expect(res.body.count).toBe(7);
          created.push((await createOrganization(t, { admin: actor })).id); // joins at the end of the walk
        }
        page = res.body.next?.page;
        pages++;
      } while (page);

      expect(seen).toEqual(created);
      expect(pages).toBe(3);
    });

    it('omits next on the last page', async () => {
      const actor = await createUser(t);
      await createOrganization(t, { admin: actor });
      const res = await t.http
        .get('/v1/orgs')
        .set(...actor.auth)
        .expect(200);
      expect(res.body.count).toBe(1);
      expect(res.body).not.toHaveProperty('next');
    });

    it.each([['0'], ['1001'], ['abc'], ['2.5']])('refuses limit=%s with 400', async (limit) => {
      const actor = await createUser(t);
      expectErrorEnvelope(
        await t.http
          .get('/v1/orgs')
          .query({ limit })
          .set(...actor.auth),
        400,
        /limit/,
      );
    });

    it('accepts limit=1 and limit=1000', async () => {
      const actor = await createUser(t);
      await t.http
        .get('/v1/orgs')
        .query({ limit: 1 })
        .set(...actor.auth)
        .expect(200);
      await t.http
        .get('/v1/orgs')
        .query({ limit: 1000 })
        .set(...actor.auth)
        .expect(200);
    });

    it('refuses a tampered cursor with 400', async () => {
      const actor = await createUser(t);
      await createOrganization(t, { admin: actor });
      await createOrganization(t, { admin: actor });
      const first = await t.http
        .get('/v1/orgs')
        .query({ limit: 1 })
        .set(...actor.auth)
        .expect(200);
      const cursor: string = first.body.next.page;
      const forged = Buffer.from(JSON.stringify({ l: 'members', k: ['x', 'y'] })).toString('base64url');
      for (const page of [cursor.slice(0, -3), `${cursor}!`, 'bm90LWpzb24', forged]) {
        expectErrorEnvelope(
          await t.http
            .get('/v1/orgs')
            .query({ page })
            .set(...actor.auth),
          400,
          /page/,
        );
      }
    });
  });
});

describe('invites', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const invites = (org: OrgFixture) => `/v1/orgs/${org.id}/invites`;
  const email = () => `${unique('invitee')}@example.com`;
  const membership = (org: OrgFixture, userId: string) => t.dataSource.getRepository(Membership).findOneBy({ organizationId: org.id, userId });
  const memberCount = (org: OrgFixture) => t.dataSource.getRepository(Membership).countBy({ organizationId: org.id });

  itChecksAccess(() => t, {
    request: (org) => t.http.post(invites(org)).send({ emails: [email()] }),
    anonymous: 401,
    outsider: 404,
    member: { role: 'create', status: 403, after: async (org) => expect(await memberCount(org)).toBe(2) },
  });

  it('adds new users, invites existing ones, leaves members unchanged and reports them', async () => {
    const org = await createOrganization(t);
    const existingUser = await createUser(t); // a user elsewhere, not yet a member
    const member = await addMember(t, org, 'read');
    const [fresh, withRole] = [email(), email()];
    const res = await t.http
      .post(invites(org))
      .set(...org.admin.auth)
      .send({
        emails: [fresh, { email: withRole, role: 'edit' }, existingUser.user.email.toUpperCase(), { email: member.user.email, role: 'admin' }, fresh],
        role: 'comment',
      })
      .expect(200);
    expectContract(res, 'inviteUsersToOrganization');
    const users = t.app.get(UsersService);
    const freshUser = await users.findByEmail(fresh);
    const withRoleUser = await users.findByEmail(withRole);
    expect(res.body).toEqual({
      users: [freshUser?.id, withRoleUser?.id],
      invited: 2,
      alreadyMembers: [member.user.email],
      pending: [existingUser.user.email.toUpperCase()],
    });
    expect(freshUser?.displayName).toBe(fresh.split('@')[0]);
    expect((await membership(org, freshUser!.id))?.role).toBe('comment');
    expect((await membership(org, withRoleUser!.id))?.role).toBe('edit');
    expect(await membership(org, existingUser.user.id)).toBeNull();
    expect((await membership(org, member.user.id))?.role).toBe('read');
  });

  it("uses the organization's default role when the request names none, and null makes guests", async () => {
    const org = await createOrganization(t);
    await t.http
      .patch(`/v1/orgs/${org.id}`)
      .set(...org.admin.auth)
      .send({ defaultRole: 'review' })
      .expect(200);
    const [a, b] = [email(), email()];
    const res = await t.http
      .post(invites(org))
      .set(...org.admin.auth)
      .send({ emails: [a, { email: b, role: null }] })
      .expect(200);
    expect((await membership(org, res.body.users[0]))?.role).toBe('review');
    expect((await membership(org, res.body.users[1]))?.role).toBeNull();
    const guests = await t.http
      .post(invites(org))
      .set(...org.admin.auth)
      .send({ emails: [email()], role: null })
      .expect(200);
    expect((await membership(org, guests.body.users[0]))?.role).toBeNull();
  });

  it('makes the new members SSO members with sso: true', async () => {
    const org = await createOrganization(t);
    const res = await t.http
      .post(invites(org))
      .set(...org.admin.auth)
      .send({ emails: [email()], sso: true })
      .expect(200);
    expect((await membership(org, res.body.users[0]))?.sso).toBe(true);
    const member = await t.http
      .get(`/v1/orgs/${org.id}/members/${res.body.users[0]}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(member.body.sso).toBe(true);
  });

  it('accepts 100 e-mails and refuses 101', async () => {
    const org = await createOrganization(t);
    const batch = Array.from({ length: 100 }, () => email());
    const ok = await t.http
      .post(invites(org))
      .set(...org.admin.auth)
      .send({ emails: batch })
      .expect(200);
    expect(ok.body.invited).toBe(100);
    expectErrorEnvelope(
      await t.http
        .post(invites(org))
        .set(...org.admin.auth)
        .send({ emails: [...batch, email()] }),
      400,
      /emails/,
    );
  });

  it.each([
    ['a malformed e-mail', { emails: ['not-an-email'] }, /emails\.0\.email/],
    ['a malformed e-mail in an object', { emails: [email(), { email: 'a@', role: 'read' }] }, /emails\.1\.email/],
    ['an unknown role', { emails: [{ email: 'a@example.com', role: 'owner' }] }, /emails\.0\.role/],
    ['an unknown default role', { emails: ['a@example.com'], role: 'owner' }, /role/],
    ['an item that is a number', { emails: [42] }, /emails/],
    ['an unknown field in an item', { emails: [{ email: 'a@example.com', role: 'read', team: 'x' }] }, /team/],
    ['no e-mails', { emails: [] }, /emails/],
    ['a missing emails', {}, /emails/],
    ['a non-boolean sso', { emails: ['a@example.com'], sso: 'yes' }, /sso/],
  ])('refuses %s with 400 naming the field, and adds nobody', async (_case, body, field) => {
    const org = await createOrganization(t);
    expectErrorEnvelope(
      await t.http
        .post(invites(org))
        .set(...org.admin.auth)
        .send(body),
      400,
      field,
    );
    expect(await memberCount(org)).toBe(1);
  });

  describe('invitations of existing users', () => {
    const mine = (actor: Actor, query = '') => t.http.get(`/v1/user/invites${query}`).set(...actor.auth);
    const accept = (actor: Actor, id: string) => t.http.post(`/v1/user/invites/${id}/accept`).set(...actor.auth);
    const decline = (actor: Actor, id: string) => t.http.delete(`/v1/user/invites/${id}`).set(...actor.auth);
    const inviteTo = (org: OrgFixture, body: object) =>
      t.http
        .post(invites(org))
        .set(...org.admin.auth)
        .send(body)
        .expect(200);

    it('requires authentication', async () => {
      expectErrorEnvelope(await t.http.get('/v1/user/invites'), 401);
      expectErrorEnvelope(await t.http.post('/v1/user/invites/x/accept'), 401);
      expectErrorEnvelope(await t.http.delete('/v1/user/invites/x'), 401);
    });

    it('a cross-organization invite adds no member and hides the profile until the invitee accepts with their own token', async () => {
      const home = await createOrganization(t);
      const invitee = await addMember(t, home, 'admin');
      const other = await createOrganization(t);
      const res = await inviteTo(other, { emails: [invitee.user.email], role: 'edit', sso: true });
      expect(res.body).toEqual({ users: [], invited: 0, alreadyMembers: [], pending: [invitee.user.email] });
      expect(await membership(other, invitee.user.id)).toBeNull();
      expect(await memberCount(other)).toBe(1);
      // Not a member: the inviter cannot read their profile or their member record.
      expectErrorEnvelope(await t.http.get(`/v1/users/${invitee.user.id}`).set(...other.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${other.id}/members/${invitee.user.id}`).set(...other.admin.auth), 404);
      // Nor can the invitee see the organization yet.
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${other.id}`).set(...invitee.auth), 404);

      const list = await mine(invitee).expect(200);
      expect(list.body).toEqual({
        count: 1,
        items: [
          {
            object: 'organization-invite',
            id: expect.any(String),
            organization: { id: other.id, title: expect.any(String) },
            role: 'edit',
            sso: true,
            createdAt: expect.any(String),
          },
        ],
      });
      const inviteId = list.body.items[0].id;

      // Nobody else can accept it: not the inviter, not a third user.
      const stranger = await createUser(t);
      expectErrorEnvelope(await accept(other.admin, inviteId), 404);
      expectErrorEnvelope(await accept(stranger, inviteId), 404);
      expectErrorEnvelope(await decline(stranger, inviteId), 404);
      expect(await membership(other, invitee.user.id)).toBeNull();

      const accepted = await accept(invitee, inviteId).expect(200);
      expectContract(accepted, 'getMemberInOrganizationById');
      expect(accepted.body).toMatchObject({ id: invitee.user.id, role: 'edit', sso: true, user: { id: invitee.user.id, email: invitee.user.email } });
      expect((await membership(other, invitee.user.id))?.role).toBe('edit');
      expect((await mine(invitee).expect(200)).body).toEqual({ count: 0, items: [] });
      expectErrorEnvelope(await accept(invitee, inviteId), 404);
      expect(
        (
          await t.http
            .get(`/v1/users/${invitee.user.id}`)
            .set(...other.admin.auth)
            .expect(200)
        ).body.email,
      ).toBe(invitee.user.email);
    });

    it('declining removes the invitation and adds nobody; inviting again updates the pending role', async () => {
      const invitee = await createUser(t);
      const org = await createOrganization(t);
      await inviteTo(org, { emails: [invitee.user.email], role: 'read' });
      await inviteTo(org, { emails: [{ email: invitee.user.email, role: null }] });
      const list = await mine(invitee).expect(200);
      expect(list.body.items).toEqual([expect.objectContaining({ role: null })]);
      await decline(invitee, list.body.items[0].id).expect(204);
      expect((await mine(invitee).expect(200)).body.count).toBe(0);
      expectErrorEnvelope(await decline(invitee, list.body.items[0].id), 404);
      expect(await membership(org, invitee.user.id)).toBeNull();
    });

    it('lists pending invitations page by page, oldest first', async () => {
      const invitee = await createUser(t);
      const orgs: OrgFixture[] = [];
      for (let i = 0; i < 3; i++) {
        const org = await createOrganization(t);
        await inviteTo(org, { emails: [invitee.user.email] });
        orgs.push(org);
      }
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await mine(invitee, `?limit=2${page ? `&page=${page}` : ''}`).expect(200);
        expect(res.body.count).toBe(3);
        seen.push(...res.body.items.map((item: any) => item.organization.id));
        page = res.body.next?.page;
      } while (page);
      expect(seen).toEqual(orgs.map((org) => org.id));
      expectErrorEnvelope(await mine(invitee, '?limit=0'), 400, /limit/);
      expectErrorEnvelope(await mine(invitee, '?page=nonsense'), 400);
    });
  });
});

describe('authentication', () => {
  let t: TestApp;
  const { lines: logLines, sink } = captureLogs();

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' }, sink);
  });
  afterAll(() => t.close());

  it('requires a bearer token', async () => {
    const res = await t.http.get('/v1/user');
    expectErrorEnvelope(res, 401, /Authorization: Bearer/);
  });

  it('refuses an unknown token with the 401 envelope', async () => {
    const res = await t.http.get('/v1/user').set('Authorization', 'Bearer quire_not-a-real-token');
    expectErrorEnvelope(res, 401, /invalid/);
  });

  it('refuses a header that is not a bearer token', async () => {
    const res = await t.http.get('/v1/user').set('Authorization', 'Basic dXNlcjpwYXNz');
    expectErrorEnvelope(res, 401);
  });

  it('answers GET /v1/user for a valid token, matching the public schema', async () => {
    const actor = await createUser(t, { name: 'Ada Lovelace' });
    const res = await t.http
      .get('/v1/user')
      .set(...actor.auth)
      .expect(200);
    expectContract(res, 'getAuthenticatedUser');
    expect(res.body).toMatchObject({ object: 'user', id: actor.user.id, displayName: 'Ada Lovelace', email: actor.user.email });
    expect(res.body.urls.location).toBe(`http://quire.test/v1/users/${actor.user.id}`);
  });

  it('records when a token was last used', async () => {
    const actor = await createUser(t);
    await t.http
      .get('/v1/user')
      .set(...actor.auth)
      .expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the write is off the request path
    const [row] = await t.dataSource.query(`SELECT last_used_at FROM api_tokens WHERE user_id = $1`, [actor.user.id]);
    expect(row.last_used_at).toBeInstanceOf(Date);
  });

  it('records a use again only once the last one is more than a minute old', async () => {
    const actor = await createUser(t);
    const lastUsed = async () =>
      ((await t.dataSource.query(`SELECT last_used_at FROM api_tokens WHERE user_id = $1`, [actor.user.id])) as { last_used_at: Date }[])[0].last_used_at;
    const use = async () => {
      await t.http
        .get('/v1/user')
        .set(...actor.auth)
        .expect(200);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the write is off the request path
    };
    const recent = new Date(Date.now() - 30_000);
    await t.dataSource.query(`UPDATE api_tokens SET last_used_at = $2 WHERE user_id = $1`, [actor.user.id, recent]);
    await use();
    expect((await lastUsed()).getTime()).toBe(recent.getTime());
    const old = new Date(Date.now() - 120_000);
    await t.dataSource.query(`UPDATE api_tokens SET last_used_at = $2 WHERE user_id = $1`, [actor.user.id, old]);
    await use();
    expect((await lastUsed()).getTime()).toBeGreaterThan(Date.now() - 10_000);
  });

  it("keeps the user's dates exact to the millisecond on the authenticated user", async () => {
    const actor = await createUser(t);
    const stored = (
      (await t.dataSource.query(`SELECT created_at, updated_at FROM users WHERE id = $1`, [actor.user.id])) as { created_at: Date; updated_at: Date }[]
    )[0];
    const tokens = t.app.get(TokensService);
    const user = await tokens.authenticate(actor.token);
    expect(user?.createdAt).toEqual(stored.created_at);
    expect(user?.updatedAt).toEqual(stored.updated_at);
  });

  it('stores tokens only as SHA-256 hashes', async () => {
    const actor = await createUser(t);
    const rows: { token_hash: string }[] = await t.dataSource.query(`SELECT token_hash FROM api_tokens WHERE user_id = $1`, [actor.user.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].token_hash).not.toContain(actor.token);
  });

  it('never writes a token into a log line, and tags lines with the request id', async () => {
    const actor = await createUser(t);
    await t.http
      .get('/v1/user')
      .set(...actor.auth)
      .set('X-Request-Id', 'trace-abc-123')
      .expect(200);
    await t.http.get('/v1/user').set('Authorization', 'Bearer leaked-secret-value').expect(401);
    const joined = logLines.join('\n');
    expect(joined).toContain('trace-abc-123');
    expect(joined).not.toContain(actor.token);
    expect(joined).not.toContain('leaked-secret-value');
  });

  it('keeps health checks open without a token', async () => {
    await t.http.get('/health/live').expect(200);
    await t.http.get('/health/ready').expect(200);
  });
});

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

describe('SAML providers and SSO', () => {
  let t: TestApp;
  let certificate: string;
  beforeAll(async () => {
    t = await createTestApp();
    certificate = await selfSignedCertificatePem();
  });
  afterAll(() => t.close());

  const saml = (org: OrgFixture) => `/v1/orgs/${org.id}/saml`;
  const provider = (org: OrgFixture, id: string) => `${saml(org)}/${id}`;
  const body = (overrides: Record<string, unknown> = {}) => ({
    label: 'Okta',
    entityID: 'http://www.okta.com/exk1',
    certificate,
    ssoURL: 'https://acme.okta.com/app/sso/saml',
    ...overrides,
  });
  const create = async (org: OrgFixture, overrides: Record<string, unknown> = {}) =>
    (
      await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body(overrides))
        .expect(201)
    ).body;

  describe('POST /v1/orgs/{organizationId}/saml', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.post(saml(org)).send(body()),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403 },
    });

    it('creates an active provider, with service URLs derived from PUBLIC_URL and its id', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org, { title: 'SSO people' });
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body({ defaultTeam: team.id, defaultRole: 'read' }))
        .expect(201);
      expectContract(res, 'createOrganizationSAMLProvider');
      const id = res.body.id;
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/saml/${id}`);
      expect(res.body).toEqual({
        object: 'saml-provider',
        id,
        label: 'Okta',
        ssoURL: 'https://acme.okta.com/app/sso/saml',
        entityID: 'http://www.okta.com/exk1',
        certificate,
        defaultTeam: expect.objectContaining({ object: 'team', id: team.id, title: 'SSO people', permissions: { admin: true, view: true } }),
        defaultRole: 'read',
        createdAt: expect.any(String),
        status: 'active',
        service: {
          acsURL: `http://quire.test/saml/${id}/acs`,
          startURL: `http://quire.test/saml/${id}/start`,
          entityID: `http://quire.test/saml/${id}`,
        },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/saml/${id}` },
      });
      const guests = await create(org);
      expect(guests.defaultRole).toBeNull();
      expect(guests).not.toHaveProperty('defaultTeam');
    });

    it('creates a pending provider from a label only (section 4.15); PATCH completes it and it becomes active', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send({ label: 'Okta' })
        .expect(201);
      expectContract(res, 'createOrganizationSAMLProvider');
      const id = res.body.id;
      expect(res.body).toEqual({
        object: 'saml-provider',
        id,
        label: 'Okta',
        ssoURL: 'about:blank',
        entityID: '',
        certificate: '',
        defaultRole: null,
        createdAt: expect.any(String),
        status: 'pending',
        service: {
          acsURL: `http://quire.test/saml/${id}/acs`,
          startURL: `http://quire.test/saml/${id}/start`,
          entityID: `http://quire.test/saml/${id}`,
        },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/saml/${id}` },
      });
      // Nobody can sign in with it yet: the sign-in list leaves it out.
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}/sso`)
            .set(...reader.auth)
            .expect(200)
        ).body,
      ).toEqual({ items: [] });

      const partly = await t.http
        .patch(provider(org, id))
        .set(...org.admin.auth)
        .send({ entityID: 'http://www.okta.com/exk1', ssoURL: 'https://acme.okta.com/app/sso/saml' })
        .expect(200);
      expectContract(partly, 'updateOrganizationSAMLProvider');
      expect(partly.body).toMatchObject({ status: 'pending', entityID: 'http://www.okta.com/exk1', certificate: '' });
      const done = await t.http
        .patch(provider(org, id))
        .set(...org.admin.auth)
        .send({ certificate })
        .expect(200);
      expectContract(done, 'updateOrganizationSAMLProvider');
      expect(done.body).toMatchObject({ status: 'active', ssoURL: 'https://acme.okta.com/app/sso/saml', entityID: 'http://www.okta.com/exk1', certificate });
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}/sso`)
            .set(...reader.auth)
            .expect(200)
        ).body,
      ).toEqual({
        items: [{ id, label: 'Okta', startURL: `http://quire.test/saml/${id}/start` }],
      });
    });

    it.each([
      ['a null entityID', { entityID: null }, /entityID/],
      ['a null certificate', { certificate: null }, /certificate/],
      ['a null ssoURL', { ssoURL: null }, /ssoURL/],
      ['an empty entityID', { entityID: '' }, /entityID/],
    ])('with a label only, still refuses %s with 400', async (_case, extra, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send({ label: 'Okta', ...extra }),
        400,
        field,
      );
    });

    it('accepts the limits at their edge: label 30, entityID 1024, ssoURL 2048', async () => {
      const org = await createOrganization(t);
      const ssoURL = `https://idp.test/${'p'.repeat(2048 - 'https://idp.test/'.length)}`;
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body({ label: 'l'.repeat(30), entityID: 'e'.repeat(1024), ssoURL }))
        .expect(201);
      expect(res.body).toMatchObject({ label: 'l'.repeat(30), entityID: 'e'.repeat(1024), ssoURL });
    });

    it.each([
      ['a label of 31 characters', { label: 'l'.repeat(31) }, /label/],
      ['an empty label', { label: '' }, /label/],
      ['a missing label', { label: undefined }, /label/],
      ['an entityID of 1025 characters', { entityID: 'e'.repeat(1025) }, /entityID/],
      ['an ssoURL of 2049 characters', { ssoURL: `https://idp.test/${'p'.repeat(2049 - 'https://idp.test/'.length)}` }, /ssoURL/],
      ['an ssoURL that is not a URL', { ssoURL: 'idp.test/sso' }, /ssoURL/],
      ['an ssoURL that is not http(s)', { ssoURL: 'ftp://idp.test/sso' }, /ssoURL/],
      ['a certificate that is not PEM', { certificate: 'MIIBFjCBvaADAgECAgEBMAoGCCqGSM49BAMC' }, /certificate/],
      [
        'a PEM block that is not a certificate',
        { certificate: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n' },
        /certificate/,
      ],
      ['a certificate of 10001 characters', { certificate: 'c'.repeat(10001) }, /certificate/],
      ['an unknown default role', { defaultRole: 'owner' }, /defaultRole/],
      ['an unknown field', { issuer: 'x' }, /issuer/],
    ])('refuses %s with 400 naming the field', async (_case, overrides, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body(overrides)),
        400,
        field,
      );
    });

    it("refuses a default team that is not one of the organization's with 400", async () => {
      const org = await createOrganization(t);
      const elsewhere = await createTeam(t, await createOrganization(t));
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body({ defaultTeam: elsewhere.id })),
        400,
        /defaultTeam/,
      );
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body({ defaultTeam: 'nope' })),
        400,
        /defaultTeam/,
      );
    });
  });

  describe('GET /v1/orgs/{organizationId}/saml', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(saml(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'read', status: 403 },
    });

    it('walks every provider once, with their default teams', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await create(org, { label: `IdP ${i}`, defaultTeam: i % 2 ? team.id : undefined })).id);
      await create(await createOrganization(t)); // another organization's
      const walk = await walkList(t, saml(org), org.admin, { limit: 2 }, (res) => {
        expectContract(res, 'listSAMLProvidersInOrganizationById');
        for (const item of res.body.items) expect(item.defaultTeam?.id).toBe(item.label.endsWith('1') || item.label.endsWith('3') ? team.id : undefined);
      });
      expect(walk).toEqual({ ids: created, pages: 3, count: 5 });
    });
  });

  describe('GET /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.get(provider(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: "answers 404 to a caller from another organization, and for another organization's provider",
        also: async (org, created) => {
          const other = await createOrganization(t);
          await expectRefused(() => t.http.get(provider(other, created.id)), [other.admin, 404]);
          const missing = await t.http.get(provider(org, 'nope')).set(...org.admin.auth);
          expectErrorEnvelope(missing, 404);
          expectContract(missing, 'getOrganizationSAMLProviderById');
        },
      },
      member: { role: 'create', status: 403 },
    });

    it('answers the provider', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      const res = await t.http
        .get(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getOrganizationSAMLProviderById');
      expect(res.body).toEqual(created);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    const rename = (org: OrgFixture, id: string) => t.http.patch(provider(org, id)).send({ label: 'New' });
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => rename(org, created.id),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown provider',
        also: (org) => expectRefused(() => rename(org, 'nope'), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('changes only the fields given, sets and clears the default team and role', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created = await create(org, { defaultRole: 'edit' });
      const newCertificate = await selfSignedCertificatePem('idp2.test');
      const res = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({ label: 'Renamed', certificate: newCertificate, defaultTeam: team.id })
        .expect(200);
      expectContract(res, 'updateOrganizationSAMLProvider');
      expect(res.body).toMatchObject({
        label: 'Renamed',
        certificate: newCertificate,
        defaultTeam: { id: team.id },
        defaultRole: 'edit',
        entityID: created.entityID,
      });
      const cleared = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({ defaultTeam: null, defaultRole: null })
        .expect(200);
      expect(cleared.body).not.toHaveProperty('defaultTeam');
      expect(cleared.body.defaultRole).toBeNull();
      const unchanged = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({})
        .expect(200);
      expect(unchanged.body.label).toBe('Renamed');
    });

    it.each([
      ['a bad certificate', { certificate: 'not a certificate' }, /certificate/],
      ['a null label', { label: null }, /label/],
      ['a null certificate', { certificate: null }, /certificate/],
      ['a label of 31 characters', { label: 'l'.repeat(31) }, /label/],
      ['an ssoURL that is not a URL', { ssoURL: 'nope' }, /ssoURL/],
      ['a default team of another organization', { defaultTeam: 'nope' }, /defaultTeam/],
    ])('refuses %s with 400, changing nothing', async (_case, change, field) => {
      const org = await createOrganization(t);
      const created = await create(org);
      expectErrorEnvelope(
        await t.http
          .patch(provider(org, created.id))
          .set(...org.admin.auth)
          .send(change),
        400,
        field,
      );
      expect((await t.http.get(provider(org, created.id)).set(...org.admin.auth)).body).toEqual(created);
    });

    it('loses its default team when the team is deleted', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created = await create(org, { defaultTeam: team.id });
      await t.http
        .delete(`/v1/orgs/${org.id}/teams/${team.id}`)
        .set(...org.admin.auth)
        .expect(204);
      const res = await t.http
        .get(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body).not.toHaveProperty('defaultTeam');
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.delete(provider(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown provider',
        also: (org) => expectRefused(() => t.http.delete(provider(org, 'nope')), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('deletes the provider', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      const res = await t.http
        .delete(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(204);
      expect(res.text).toBe('');
      expectErrorEnvelope(await t.http.get(provider(org, created.id)).set(...org.admin.auth), 404);
    });
  });

  describe('GET /v1/orgs/{organizationId}/sso', () => {
    const sso = (org: OrgFixture) => `/v1/orgs/${org.id}/sso`;

    itChecksAccess(() => t, {
      request: (org) => t.http.get(sso(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it("lists each provider's label and start URL to any member", async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const empty = await t.http
        .get(sso(org))
        .set(...reader.auth)
        .expect(200);
      expect(empty.body).toEqual({ items: [] });
      const okta = await create(org, { label: 'Okta' });
      const azure = await create(org, { label: 'Azure AD' });
      const res = await t.http
        .get(sso(org))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listSSOProviderLoginsInOrganization');
      expect(res.body).toEqual({
        items: [
          { id: okta.id, label: 'Okta', startURL: okta.service.startURL },
          { id: azure.id, label: 'Azure AD', startURL: azure.service.startURL },
        ],
      });
    });
  });
});
