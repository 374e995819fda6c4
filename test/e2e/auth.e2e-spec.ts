import { TokensService } from '../../src/modules/tokens/tokens.service';
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
