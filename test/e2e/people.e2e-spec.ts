import { Actor, OrgFixture, addMember, createOrganization, createUser, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { TestApp, createTestApp } from '../support/test-app';
import { createSpace, createTeam, grantSpace } from '../support/org-admin-builders';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { createSite } from '../support/site-builders';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { UsersService } from '../../src/modules/users/users.service';
import { TokensService } from '../../src/modules/tokens/tokens.service';
import { captureLogs } from '../support/log-capture';

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
