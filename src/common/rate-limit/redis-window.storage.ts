import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { Counter } from 'prom-client';
import type { MetricsService } from '../metrics/metrics.service';
import type { BudgetHit, RateLimitStore, Taken, WindowRecord } from './rate-limit.store';
import { failFastRedis } from '../redis/fail-fast-redis';
import { within } from '../async/within';

/**
 * One fixed-window hit, atomic on the Redis server: KEYS[1] the counter, KEYS[2] its block;
 * ARGV window ms, limit, block ms. Returns { hits, ms left in the window, ms left in the block }.
 * A blocked key is not counted (as in memory); the first hit of a window sets its expiry.
 */
const HIT_SCRIPT = `
local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then
  return { tonumber(redis.call('GET', KEYS[1]) or '0'), math.max(redis.call('PTTL', KEYS[1]), 0), blocked }
end
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) and tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return { hits, left, tonumber(ARGV[3]) }
end
return { hits, left, 0 }
`;

/**
 * A request's check in one call: KEYS[1] the lockout's block ('' for none), then a counter and its
 * block per budget; ARGV[1] '1' when a lockout refuses without counting, then window ms and limit
 * per budget. Returns { ms left in the lockout, then hits, ms left in the window, ms left in its block per budget }.
 */
const TAKE_SCRIPT = `
local out = { 0 }
if KEYS[1] ~= '' then
  out[1] = math.max(redis.call('PTTL', KEYS[1]), 0)
  if out[1] > 0 and ARGV[1] == '1' then return out end
end
for i = 2, #KEYS, 2 do
  local window, limit = ARGV[i], tonumber(ARGV[i + 1])
  local blocked = redis.call('PTTL', KEYS[i + 1])
  local hits, left
  if blocked > 0 then
    hits = tonumber(redis.call('GET', KEYS[i]) or '0')
    left = math.max(redis.call('PTTL', KEYS[i]), 0)
  else
    blocked = 0
    hits = redis.call('INCR', KEYS[i])
    left = redis.call('PTTL', KEYS[i])
    if left < 0 then
      redis.call('PEXPIRE', KEYS[i], window)
      left = tonumber(window)
    end
  end
  table.insert(out, hits)
  table.insert(out, left)
  table.insert(out, blocked)
end
return out
`;

/** A counter missed while Redis does not answer: nothing counted, nothing blocked (fail open). */
const missed = (windowMs: number): WindowRecord => ({ totalHits: 0, timeToExpire: Math.ceil(windowMs / 1000), isBlocked: false, timeToBlockExpire: 0 });

type WindowRedis = Redis & {
  quireWindowHit(counter: string, block: string, windowMs: number, limit: number, blockMs: number): Promise<[number, number, number]>;
  quireTake(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
};

/** How often, at most, a Redis failure is logged (the metric counts every one). */
const WARN_EVERY_MS = 30_000;

/**
 * The rate-limit and lockout counters on Redis (REDIS_URL), shared by every replica: each hit is one
 * Lua script (INCR, PEXPIRE on the window's first hit, the block's SET PX), and a request's lockout
 * read and budget hits go in one pipeline, one round trip. Redis unreachable or slower than
 * REDIS_TIMEOUT_MS: the request goes on as if nothing were counted (limits fail open), the failure
 * moves `quire_rate_limit_store_errors_total` and a warning is logged at most every 30 s. Commands
 * never queue while disconnected (they fail at once), and the client reconnects in the background.
 */
export class RedisWindowStorage implements RateLimitStore, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: WindowRedis;
  private readonly errors: Counter;
  private lastWarning = 0;
  private suppressed = 0;

  constructor(
    private readonly options: { url: string; keyPrefix: string; timeoutMs: number },
    metrics: MetricsService,
  ) {
    this.redis = failFastRedis(options.url, options.timeoutMs) as WindowRedis;
    this.redis.defineCommand('quireWindowHit', { numberOfKeys: 2, lua: HIT_SCRIPT });
    this.redis.defineCommand('quireTake', { lua: TAKE_SCRIPT });
    // Connection errors (each reconnection attempt): logged, not counted; the commands they fail are.
    this.redis.on('error', (error: Error) => this.failed(error, false));
    this.errors = new Counter({
      name: 'quire_rate_limit_store_errors_total',
      help: 'Rate-limit counters Redis did not answer in time (the request went on without the shared limits)',
      registers: [metrics.registry],
    });
  }

  async onModuleInit(): Promise<void> {
    // Not reachable now: the process starts all the same and the client keeps trying.
    await this.redis.connect().catch((error: Error) => this.failed(error, false));
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }

  async hit(key: string, windowMs: number, limit: number, blockMs: number, name: string): Promise<WindowRecord> {
    try {
      const [hits, left, blocked] = await this.bounded(
        this.redis.quireWindowHit(this.counterKey(name, key), this.blockKey(name, key), windowMs, limit, blockMs),
      );
      return record(hits, left, blocked, limit);
    } catch (error) {
      this.failed(error as Error);
      return missed(windowMs);
    }
  }

  async take(lockout: { key: string; name: string; refusesAtOnce: boolean } | undefined, budgets: readonly BudgetHit[]): Promise<Taken> {
    const keys = [lockout ? this.blockKey(lockout.name, lockout.key) : ''];
    const args: (string | number)[] = [lockout?.refusesAtOnce ? '1' : '0'];
    for (const budget of budgets) {
      keys.push(this.counterKey(budget.name, budget.key), this.blockKey(budget.name, budget.key));
      args.push(budget.windowMs, budget.limit);
    }
    try {
      const [lockoutMs, ...values] = await this.bounded(this.redis.quireTake(keys.length, ...keys, ...args));
      const blockedFor = lockoutMs > 0 ? Math.ceil(lockoutMs / 1000) : 0;
      // Refused by the lockout before any budget was counted.
      if (values.length < budgets.length * 3) return { blockedFor, records: [] };
      return { blockedFor, records: budgets.map((budget, i) => record(values[3 * i], values[3 * i + 1], values[3 * i + 2], budget.limit)) };
    } catch (error) {
      this.failed(error as Error);
      return { blockedFor: 0, records: budgets.map((budget) => missed(budget.windowMs)) };
    }
  }

  private counterKey(name: string, key: string): string {
    return `${this.options.keyPrefix}rl:${name}:${key}`;
  }

  private blockKey(name: string, key: string): string {
    return `${this.options.keyPrefix}rl:${name}:${key}:block`;
  }

  /** A reply within REDIS_TIMEOUT_MS, or a rejection (commandTimeout alone does not bound a pipeline). */
  private bounded<T>(work: Promise<T>): Promise<T> {
    return within(work, this.options.timeoutMs, `Redis did not answer within ${this.options.timeoutMs} ms`);
  }

  private failed(error: Error, counted = true): void {
    if (counted) this.errors.inc();
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) {
      this.suppressed++;
      return;
    }
    this.logger.warn({ msg: 'rate-limit store unreachable: limits fail open', error: error.message, alsoFailedSinceLastWarning: this.suppressed });
    this.lastWarning = now;
    this.suppressed = 0;
  }
}

function record(hits: number, leftMs: number, blockedMs: number, limit: number): WindowRecord {
  return {
    totalHits: hits,
    timeToExpire: Math.ceil(leftMs / 1000),
    isBlocked: blockedMs > 0 || hits > limit,
    timeToBlockExpire: blockedMs > 0 ? Math.ceil(blockedMs / 1000) : 0,
  };
}
