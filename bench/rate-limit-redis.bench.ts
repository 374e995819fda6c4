/* Shared limits on Redis: what counting on Redis (one Lua script per request) costs a request against
 * the in-memory counters. Two in-process apps, the same route (`GET /v1/user`, rate limits on but never
 * reached), interleaved rounds (memory, Redis, memory, Redis…), medians and per-round ratios. Needs
 * Redis on BENCH_REDIS_URL (default redis://127.0.0.1:6379); skipped without it.
 * Standalone: `node -r @swc-node/register bench/rate-limit-redis.bench.ts` (or BENCH_ONLY=rate-limit-redis npm run bench). */
import { loadavg } from 'node:os';
import Redis from 'ioredis';
import { Figures, load, row } from './harness';
import { BenchApp, startBenchApp } from './in-process';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function main(): Promise<void> {
  if (!(await redisAnswers())) {
    process.stdout.write(`rate-limit-redis: skipped (no Redis answers on ${REDIS_URL})\n`);
    return;
  }
  const limits = { RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_TOKEN: '1000000000' };
  const prefix = `quire-bench-${Date.now()}:`;
  const apps: BenchApp[] = [];
  try {
    const memory = await startBenchApp(limits, 'memory@example.com');
    apps.push(memory);
    const shared = await startBenchApp({ ...limits, REDIS_URL, REDIS_KEY_PREFIX: prefix }, 'redis@example.com');
    apps.push(shared);
    const url = (app: BenchApp) => `${app.base}/v1/user`;
    await load(url(memory), memory.headers, 2); // warm-up
    await load(url(shared), shared.headers, 2);
    const m: Figures[] = [];
    const r: Figures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      r.push(await load(url(shared), shared.headers, SECONDS));
      m.push(await load(url(memory), memory.headers, SECONDS));
    }
    const failed = [...m, ...r].reduce((sum, f) => sum + f.errors + f.non2xx, 0);
    process.stdout.write(
      [
        `\nRate limits on Redis against in memory (GET /v1/user, ${ROUNDS} interleaved rounds of ${SECONDS} s, 10 connections, load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
        '| route | Redis req/s | p50 ms | p99 ms | memory req/s | p50 ms | p99 ms | Redis ÷ memory (rounds) |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        row('GET /v1/user', r, m),
        failed > 0 ? `(${failed} errors or non-2xx answers)` : '',
      ].join('\n') + '\n',
    );
  } finally {
    for (const app of apps) await app.close();
    const cleanup = new Redis(REDIS_URL);
    const keys = await cleanup.keys(`${prefix}*`);
    if (keys.length > 0) await cleanup.del(...keys);
    cleanup.disconnect();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  },
);
