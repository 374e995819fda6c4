import { addMember, createOrganization } from '../support/builders';
import { createSpace } from '../support/space-builders';
import { expectErrorEnvelope } from '../support/contract';
import { captureLogs } from '../support/log-capture';
import { createTestApp, TestApp } from '../support/test-app';

/** A DomainError answers the public envelope unchanged; its stable code goes to the request's log line. */
describe('stable error codes over HTTP', () => {
  let t: TestApp;
  const { lines: logLines, sink } = captureLogs();

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' }, sink);
  });
  afterAll(() => t.close());

  const requestLine = (requestId: string) =>
    logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.reqId === requestId || (entry.req as { id?: string })?.id === requestId);

  it('answers {"error":{"code","message"}} only, and logs errorCode with the request', async () => {
    const org = await createOrganization(t);
    const res = await t.http
      .get(`/v1/orgs/${org.id}/teams/nope`)
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-404');
    expectErrorEnvelope(res, 404, /Team nope not found/);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
    expect(requestLine('codes-404')).toMatchObject({ errorCode: 'team.not_found', res: { statusCode: 404 } });
  });

  it('logs the code of a refusal (403) and of a state conflict (409)', async () => {
    const org = await createOrganization(t);
    const guest = await addMember(t, org, null);
    const refused = await t.http
      .get(`/v1/orgs/${org.id}/teams`)
      .set(...guest.auth)
      .set('X-Request-Id', 'codes-403');
    expectErrorEnvelope(refused, 403);
    expect(requestLine('codes-403')).toMatchObject({ errorCode: 'organization.member_required' });

    const conflict = await t.http
      .patch(`/v1/orgs/${org.id}/members/${org.admin.user.id}`)
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-409')
      .send({ role: 'edit' });
    expectErrorEnvelope(conflict, 409, /last admin/);
    expect(requestLine('codes-409')).toMatchObject({ errorCode: 'member.last_admin' });
  });

  it('logs the codes of the space-scoped modules: the route guard, a space rule and a content read', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const missing = await t.http
      .get('/v1/spaces/nope')
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-space-404');
    expectErrorEnvelope(missing, 404, /Space nope not found/);
    expect(requestLine('codes-space-404')).toMatchObject({ errorCode: 'space.not_found' });

    const live = await t.http
      .post(`/v1/spaces/${space.id}/restore`)
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-space-409');
    expectErrorEnvelope(live, 409, /is not deleted/);
    expect(requestLine('codes-space-409')).toMatchObject({ errorCode: 'space.not_deleted' });

    const page = await t.http
      .get(`/v1/spaces/${space.id}/content/page/nope`)
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-page-404');
    expectErrorEnvelope(page, 404, /Page nope not found/);
    expect(requestLine('codes-page-404')).toMatchObject({ errorCode: 'content.page_not_found' });
  });

  it('leaves errorCode off requests that did not fail on a domain rule', async () => {
    const org = await createOrganization(t);
    await t.http
      .get(`/v1/orgs/${org.id}/teams`)
      .set(...org.admin.auth)
      .set('X-Request-Id', 'codes-200')
      .expect(200);
    const line = requestLine('codes-200');
    expect(line).toBeDefined();
    expect(line).not.toHaveProperty('errorCode');
  });
});
