import { createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { captureLogs } from '../support/log-capture';
import { createTestApp, TestApp } from '../support/test-app';

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
