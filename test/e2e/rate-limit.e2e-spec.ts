import { createUser } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { loadConfig } from '../../src/config/app-config';
import { createTestApp, TestApp } from '../support/test-app';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { freePort } from '../../src/common/free-port';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import { RedisWindowStorage } from '../../src/common/rate-limit/redis-window.storage';

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

/**
 * The limits on Redis (REDIS_URL): two app instances, as two replicas, count in the same budget and
 * see the same lockout; with Redis unreachable the API keeps answering and the store's error metric
 * moves. The real Redis on 127.0.0.1:6379 (`.ci/run` starts it), a key prefix of this run's own.
 */
const REDIS_URL = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limits shared on Redis', () => {
  const prefix = `quire-test-${Date.now()}-${randomBytes(3).toString('hex')}:`;
  const apps: TestApp[] = [];
  let redis: Redis;
  const replica = async (env: Record<string, string> = {}) => {
    const app = await createTestApp({
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      AUTH_FAILURE_LIMIT: '3',
      RATE_LIMIT_PER_ADDRESS: '5',
      RATE_LIMIT_PER_TOKEN: '8',
      TRUST_PROXY: 'loopback',
      ...env,
    });
    apps.push(app);
    return app;
  };

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { lazyConnect: true });
    return redis.connect();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('two replicas share one per-address budget: the second answers 429 once the first spent it', async () => {
    const [a, b] = [await replica({ AUTH_FAILURE_LIMIT: '100' }), await replica({ AUTH_FAILURE_LIMIT: '100' })];
    const address = '10.20.0.1';
    for (let i = 0; i < 4; i++) expectErrorEnvelope(await a.http.get('/v1/user').set('X-Forwarded-For', address), 401);
    const last = await b.http.get('/v1/user').set('X-Forwarded-For', address);
    expectErrorEnvelope(last, 401);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    const refused = await b.http.get('/v1/user').set('X-Forwarded-For', address);
    expectErrorEnvelope(refused, 429, /this address/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectErrorEnvelope(await a.http.get('/v1/user').set('X-Forwarded-For', address), 429, /this address/);
    // The counter is on Redis under the run's prefix, with the window as its expiry.
    expect(Number(await redis.get(`${prefix}rl:address:address:${address}`))).toBe(7);
    expect(await redis.pttl(`${prefix}rl:address:address:${address}`)).toBeGreaterThan(0);
    // Another address has its own budget.
    expectErrorEnvelope(await b.http.get('/v1/user').set('X-Forwarded-For', '10.20.0.2'), 401);
  });

  it('two replicas share one per-token budget, whatever the address', async () => {
    const [a, b] = [await replica(), await replica()];
    const actor = await createUser(a);
    for (let i = 0; i < 8; i++) {
      await (i % 2 ? a : b).http
        .get('/v1/user')
        .set('X-Forwarded-For', `10.21.0.${i}`)
        .set(...actor.auth)
        .expect(200);
    }
    expectErrorEnvelope(
      await a.http
        .get('/v1/user')
        .set('X-Forwarded-For', '10.21.1.1')
        .set(...actor.auth),
      429,
      /this token/,
    );
  });

  it('a lockout earned on one replica is seen by the other: failing attempts refused, a valid token still passes', async () => {
    const [a, b] = [await replica({ RATE_LIMIT_PER_ADDRESS: '100' }), await replica({ RATE_LIMIT_PER_ADDRESS: '100' })];
    const actor = await createUser(a);
    const attacker = '10.22.0.1';
    for (let i = 0; i < 3; i++) {
      expectErrorEnvelope(await a.http.get('/v1/user').set('X-Forwarded-For', attacker).set('Authorization', `Bearer quire_guess_${i}`), 401);
    }
    // The 401 is counted once the response has finished: give the last count its round trip.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await b.http.get('/v1/user').set('X-Forwarded-For', attacker).set('Authorization', 'Bearer quire_guess_9');
    expectErrorEnvelope(refused, 429, /failed authentications/);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expectErrorEnvelope(await b.http.get('/v1/user').set('X-Forwarded-For', attacker), 429, /failed authentications/);
    await b.http
      .get('/v1/user')
      .set('X-Forwarded-For', attacker)
      .set(...actor.auth)
      .expect(200);
    expectErrorEnvelope(await a.http.get('/v1/user').set('X-Forwarded-For', '10.22.0.2').set('Authorization', 'Bearer quire_guess_x'), 401);
  });

  it('with Redis unreachable, requests still answer (limits fail open) and quire_rate_limit_store_errors_total moves', async () => {
    const closed = await freePort();
    const metricsToken = randomBytes(16).toString('hex');
    const app = await replica({ REDIS_URL: `redis://127.0.0.1:${closed}`, REDIS_TIMEOUT_MS: '100', METRICS_TOKEN: metricsToken });
    const actor = await createUser(app);
    const started = Date.now();
    // Past every budget (5 per address, 8 per token), and still answered.
    for (let i = 0; i < 10; i++) {
      await app.http
        .get('/v1/user')
        .set('X-Forwarded-For', '10.23.0.1')
        .set(...actor.auth)
        .expect(200);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    const scrape = (await app.http.get('/metrics').set('Authorization', `Bearer ${metricsToken}`).expect(200)).text;
    const errors = Number(/^quire_rate_limit_store_errors_total (\d+)/m.exec(scrape)?.[1]);
    expect(errors).toBeGreaterThanOrEqual(10);
  });

  it('the per-installation budget and the block of a hit are shared between two stores', async () => {
    const options = { url: REDIS_URL, keyPrefix: prefix, timeoutMs: 500 };
    const first = new RedisWindowStorage(options, { registry: new (await import('prom-client')).Registry() } as MetricsService);
    const second = new RedisWindowStorage(options, { registry: new (await import('prom-client')).Registry() } as MetricsService);
    await first.onModuleInit();
    await second.onModuleInit();
    try {
      expect((await first.hit('installation:i1', 60_000, 2, 0, 'installation')).totalHits).toBe(1);
      expect((await second.hit('installation:i1', 60_000, 2, 0, 'installation')).totalHits).toBe(2);
      const over = await first.hit('installation:i1', 60_000, 2, 0, 'installation');
      expect(over).toMatchObject({ totalHits: 3, isBlocked: true });
      // A hit past its limit with a block: the other store reads the block, and counts no more while it lasts.
      await first.hit('k', 60_000, 0, 30_000, 'block-test');
      const taken = await second.take({ key: 'k', name: 'block-test', refusesAtOnce: true }, [{ name: 'address', key: 'never', limit: 5, windowMs: 60_000 }]);
      expect(taken.blockedFor).toBeGreaterThan(25);
      expect(taken.records).toEqual([]);
      expect(await redis.exists(`${prefix}rl:address:never`)).toBe(0);
    } finally {
      await first.onModuleDestroy();
      await second.onModuleDestroy();
    }
  });
});
