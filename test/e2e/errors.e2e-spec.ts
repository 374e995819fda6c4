import { addMember, createOrganization, createUser, unique } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';
import { captureLogs } from '../support/log-capture';
import { createSpace } from '../support/space-builders';

describe('error envelope', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ BODY_LIMIT: '2kb' })));
  afterAll(() => t.close());

  it('answers unknown routes with 404', async () => {
    const actor = await createUser(t);
    expectErrorEnvelope(await t.http.get('/v1/nowhere').set(...actor.auth), 404);
  });

  it('answers malformed JSON with 400', async () => {
    const actor = await createUser(t);
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Content-Type', 'application/json')
      .send('{"title": "x"');
    expectErrorEnvelope(res, 400, /JSON/);
  });

  it('answers a body over the size limit with 413', async () => {
    const actor = await createUser(t);
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .send({ title: 'x'.repeat(4096) });
    expectErrorEnvelope(res, 413);
  });

  it('echoes the caller request id, or makes one', async () => {
    const given = await t.http.get('/health/live').set('X-Request-Id', 'req-42');
    expect(given.headers['x-request-id']).toBe('req-42');
    const made = await t.http.get('/health/live');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await t.http.get('/health/live').set('X-Request-Id', 'bad id with spaces');
    expect(unsafe.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('sends security headers', async () => {
    const res = await t.http.get('/health/live');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

/** A forced database failure with a secret planted in the body, the SQL parameters and the query string. */
describe('error logs', () => {
  let t: TestApp;
  const { lines: logLines, sink } = captureLogs();
  const trigger = `refuse_${unique('t').replace(/-/g, '_')}`;

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' }, sink);
    // An unanticipated database failure whose message quotes the inserted value, as PostgreSQL's often do.
    await t.dataSource.query(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title LIKE 'planted-%' THEN RAISE EXCEPTION 'refusing title %', NEW.title USING ERRCODE = 'XX000'; END IF;
        RETURN NEW;
      END $$`);
    await t.dataSource.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON organizations FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
  });
  afterAll(async () => {
    await t.dataSource.query(`DROP TRIGGER IF EXISTS ${trigger} ON organizations`);
    await t.dataSource.query(`DROP FUNCTION IF EXISTS ${trigger}()`);
    await t.close();
  });

  it('logs a 500 with its error code, request id, route and driver code, and never the body, parameters, query or token', async () => {
    const actor = await createUser(t);
    const secret = `planted-${unique('s3cr3t')}`;
    const querySecret = unique('q-s3cr3t');
    const res = await t.http
      .post(`/v1/orgs?apiKey=${querySecret}`)
      .set(...actor.auth)
      .set('X-Request-Id', 'req-planted-1')
      .send({ title: secret });
    expectErrorEnvelope(res, 500);
    expect(JSON.stringify(res.body)).not.toContain(secret);

    const entry = logLines.map((line) => JSON.parse(line)).find((e) => e.msg === 'unexpected error');
    expect(entry).toMatchObject({ requestId: 'req-planted-1', route: '/v1/orgs', status: 500, errorCode: 'db_error', driverCode: 'XX000' });
    expect(entry.err).toMatchObject({ type: 'QueryFailedError', code: 'XX000' });
    const log = logLines.join('\n');
    expect(log).toContain('req-planted-1');
    for (const planted of [secret, querySecret, actor.token]) expect(log).not.toContain(planted);
    expect(log).not.toContain('INSERT INTO');
  });
});

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
