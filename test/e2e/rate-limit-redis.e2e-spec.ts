import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { freePort } from '../../src/common/free-port';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import { RedisWindowStorage } from '../../src/common/rate-limit/redis-window.storage';
import { createUser } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

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
