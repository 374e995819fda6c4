import { Membership } from '../../src/modules/organizations/membership.entity';
import { UsersService } from '../../src/modules/users/users.service';
import { itChecksAccess } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

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
