import { createUser } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Low limits in a dedicated app. Client addresses come from X-Forwarded-For, which the app believes
 * from loopback (its trust-proxy setting), as it would from the load balancer.
 */
describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ AUTH_FAILURE_LIMIT: '3', RATE_LIMIT_PER_ADDRESS: '5', RATE_LIMIT_PER_TOKEN: '8' })));
  afterAll(() => t.close());

  const expectLimitHeaders = (res: { headers: Record<string, string> }) => {
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-limit']).toMatch(/^\d+$/);
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
  };

  it('sends WWW-Authenticate: Bearer with every 401, with error="invalid_token" for a wrong token', async () => {
    const none = await t.http.get('/v1/user').set('X-Forwarded-For', '10.9.0.1');
    expectErrorEnvelope(none, 401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="quire"$/);
    const wrong = await t.http.get('/v1/user').set('X-Forwarded-For', '10.9.0.2').set('Authorization', 'Bearer quire_wrong');
    expectErrorEnvelope(wrong, 401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="quire", error="invalid_token"/);
  });

  it('refuses an address with 429 once its failed-authentication budget is spent; other addresses are unaffected', async () => {
    const actor = await createUser(t);
    const attacker = '10.1.0.1';
    for (let i = 0; i < 3; i++) {
      const res = await t.http.get('/v1/user').set('X-Forwarded-For', attacker).set('Authorization', `Bearer quire_guess_${i}`);
      expectErrorEnvelope(res, 401);
    }
    const refused = await t.http.get('/v1/user').set('X-Forwarded-For', attacker).set('Authorization', 'Bearer quire_guess_4');
    expectErrorEnvelope(refused, 429, /failed authentications/);
    expectLimitHeaders(refused);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    // The address is refused whatever it sends, a valid token included…
    expectErrorEnvelope(
      await t.http
        .get('/v1/user')
        .set('X-Forwarded-For', attacker)
        .set(...actor.auth),
      429,
    );
    // …while the same valid token from another address works.
    await t.http
      .get('/v1/user')
      .set('X-Forwarded-For', '10.1.0.2')
      .set(...actor.auth)
      .expect(200);
    // Health probes are exempt.
    await t.http.get('/health/live').set('X-Forwarded-For', attacker).expect(200);
    await t.http.get('/health/ready').set('X-Forwarded-For', attacker).expect(200);
  });

  it('limits requests per address, with RateLimit headers on the way', async () => {
    const address = '10.2.0.1';
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser(t)));
    for (let i = 0; i < 5; i++) {
      const res = await t.http
        .get('/v1/user')
        .set('X-Forwarded-For', address)
        .set(...users[i].auth)
        .expect(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
    }
    const refused = await t.http
      .get('/v1/user')
      .set('X-Forwarded-For', address)
      .set(...users[5].auth);
    expectErrorEnvelope(refused, 429, /address/);
    expectLimitHeaders(refused);
  });

  it('limits requests per token, whatever the address', async () => {
    const actor = await createUser(t);
    for (let i = 0; i < 8; i++) {
      await t.http
        .get('/v1/user')
        .set('X-Forwarded-For', `10.3.0.${i + 1}`)
        .set(...actor.auth)
        .expect(200);
    }
    const refused = await t.http
      .get('/v1/user')
      .set('X-Forwarded-For', '10.3.1.1')
      .set(...actor.auth);
    expectErrorEnvelope(refused, 429, /token/);
    expectLimitHeaders(refused);
    expect(refused.headers['ratelimit-limit']).toBe('8');
  });
});
