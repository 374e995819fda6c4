import { addMember, createOrganization, createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

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
