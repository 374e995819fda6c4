import { Membership } from '../../src/modules/organizations/membership.entity';
import { UsersService } from '../../src/modules/users/users.service';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, createUser, OrgFixture, unique } from '../support/builders';
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

  it('adds new and existing users, leaves members unchanged and reports them', async () => {
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
      users: [freshUser?.id, withRoleUser?.id, existingUser.user.id],
      invited: 3,
      alreadyMembers: [member.user.email],
    });
    expect(freshUser?.displayName).toBe(fresh.split('@')[0]);
    expect((await membership(org, freshUser!.id))?.role).toBe('comment');
    expect((await membership(org, withRoleUser!.id))?.role).toBe('edit');
    expect((await membership(org, existingUser.user.id))?.role).toBe('comment');
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
});
