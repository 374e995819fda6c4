import { createUser } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { loadConfig } from '../../src/config/app-config';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Low limits in a dedicated app. Client addresses come from X-Forwarded-For, which the app believes
 * from loopback because TRUST_PROXY names it, as an operator names the load balancer.
 */
describe('rate limits', () => {
  let t: TestApp;
  beforeAll(
    async () => (t = await createTestApp({ AUTH_FAILURE_LIMIT: '3', RATE_LIMIT_PER_ADDRESS: '5', RATE_LIMIT_PER_TOKEN: '8', TRUST_PROXY: 'loopback' })),
  );
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

  it('refuses the failing attempts of an address with 429 once its failed-authentication budget is spent; a valid token still passes; other addresses are unaffected', async () => {
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
    // A lockout never refuses a valid token: the locked-out address's valid token passes…
    await t.http
      .get('/v1/user')
      .set('X-Forwarded-For', attacker)
      .set(...actor.auth)
      .expect(200);
    // …and without a token it is still refused (before the per-address budget is counted).
    expectErrorEnvelope(await t.http.get('/v1/user').set('X-Forwarded-For', attacker), 429, /failed authentications/);
    // The same valid token from another address works.
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

/** The client address is the socket's unless TRUST_PROXY names the proxy that sent X-Forwarded-For. */
describe('rate limits: X-Forwarded-For', () => {
  const failFrom = (t: TestApp, forwardedFor: string, i: number) =>
    t.http.get('/v1/user').set('X-Forwarded-For', forwardedFor).set('Authorization', `Bearer quire_guess_${i}`);

  it('ignores X-Forwarded-For without TRUST_PROXY: a forged header neither picks the address locked out nor escapes the lockout', async () => {
    const t = await createTestApp({ AUTH_FAILURE_LIMIT: '3' });
    try {
      const actor = await createUser(t);
      for (let i = 0; i < 3; i++) expectErrorEnvelope(await failFrom(t, `198.51.100.${i + 1}`, i), 401);
      // Every attempt came from this socket's address (loopback), whatever the header said: fresh
      // forged addresses are refused, as is a request without the header.
      expectErrorEnvelope(await failFrom(t, '198.51.100.50', 9), 429, /failed authentications/);
      expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', 'Bearer quire_guess_x'), 429);
      // A valid token still passes, and the failing attempts after it are still refused.
      await t.http
        .get('/v1/user')
        .set(...actor.auth)
        .expect(200);
      expectErrorEnvelope(await failFrom(t, '198.51.100.51', 10), 429, /failed authentications/);
      expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', 'Bearer qit_guess'), 429, /failed authentications/);
    } finally {
      await t.close();
    }
  });

  it('honours X-Forwarded-For only from the proxy TRUST_PROXY names', async () => {
    // Names a proxy that is not the one connecting (loopback): its header is ignored.
    const other = await createTestApp({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: '10.0.0.1' });
    try {
      for (let i = 0; i < 3; i++) expectErrorEnvelope(await failFrom(other, `198.51.100.${i + 1}`, i), 401);
      expectErrorEnvelope(await failFrom(other, '198.51.100.60', 9), 429);
    } finally {
      await other.close();
    }
    // Names loopback: the header is believed, so one forwarded client's failures lock out that client only.
    const named = await createTestApp({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: '127.0.0.1/8, ::1' });
    try {
      for (let i = 0; i < 3; i++) expectErrorEnvelope(await failFrom(named, '198.51.100.7', i), 401);
      expectErrorEnvelope(await failFrom(named, '198.51.100.7', 9), 429);
      expectErrorEnvelope(await failFrom(named, '198.51.100.8', 10), 401);
    } finally {
      await named.close();
    }
  });

  it('refuses a TRUST_PROXY that is not a list of addresses at start', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'everyone; rm -rf' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1, balancer' })).toThrow(/TRUST_PROXY: "balancer"/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/24 , loopback,::1' }).trustProxy).toEqual(['10.0.0.0/24', 'loopback', '::1']);
    expect(loadConfig({}).trustProxy).toEqual([]);
  });
});
