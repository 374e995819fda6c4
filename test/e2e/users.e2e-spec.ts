import { Actor, addMember, createOrganization, createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';
import { createSpace, createTeam, grantSpace } from '../support/org-admin-builders';

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
