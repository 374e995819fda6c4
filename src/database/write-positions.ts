import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { Counter } from 'prom-client';
import { failFastRedis } from '../common/redis/fail-fast-redis';
import { within } from '../common/async/within';

/**
 * Keeps each key's highest WAL position at least `ARGV[2]` ms: KEYS the keys, ARGV[1] the position
 * (fixed-width hex, so string order is WAL order), ARGV[2] the window. A lower position recorded
 * after a higher one (two writers racing) never lowers what a reader must wait for.
 */
const RECORD_SCRIPT = `
for i = 1, #KEYS do
  local old = redis.call('GET', KEYS[i])
  if old and old > ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
  else
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
  end
end
return #KEYS
`;

type PositionsRedis = Redis & { quireRecordWrite(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<number> };

/** 17 hex digits hold any WAL position and `1 << 64` (the primary only). */
const WIDTH = 17;
const encode = (lsn: bigint) => lsn.toString(16).padStart(WIDTH, '0');

/** How often, at most, a Redis failure is logged. */
const WARN_EVERY_MS = 30_000;

/**
 * The read-your-writes positions on Redis (REDIS_URL), so that a write answered by one Quire replica
 * is waited for by a read answered by another: one script call per write, one MGET per read scope.
 * Each call is bounded by REDIS_TIMEOUT_MS. A failed write only warns (this process still keeps the
 * position in memory); a failed read answers "unknown", and the caller reads the primary (fail safe).
 */
export class SharedWritePositions {
  private readonly logger = new Logger('ReadReplicas');
  private readonly redis: PositionsRedis;
  private lastWarning = 0;
  errors?: Counter;

  constructor(private readonly options: { url: string; keyPrefix: string; timeoutMs: number }) {
    this.redis = failFastRedis(options.url, options.timeoutMs) as PositionsRedis;
    this.redis.defineCommand('quireRecordWrite', { lua: RECORD_SCRIPT });
    this.redis.on('error', (error: Error) => this.failed(error, false));
  }

  async connect(): Promise<void> {
    // Not reachable now: the process starts all the same, reads go to the primary, the client keeps trying.
    await this.redis.connect().catch((error: Error) => this.failed(error, false));
  }

  close(): void {
    this.redis.disconnect();
  }

  async record(keys: string[], lsn: bigint, windowMs: number): Promise<void> {
    try {
      await this.bounded(this.redis.quireRecordWrite(keys.length, ...keys.map((key) => this.keyOf(key)), encode(lsn), windowMs));
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /** The highest position recorded for `keys` (undefined: none); `failSafe` when Redis does not answer. */
  async needed(keys: string[], failSafe: bigint): Promise<bigint | undefined> {
    if (keys.length === 0) return undefined;
    try {
      const values = await this.bounded(this.redis.mget(...keys.map((key) => this.keyOf(key))));
      let highest: string | undefined;
      for (const value of values) if (value && (highest === undefined || value > highest)) highest = value;
      return highest === undefined ? undefined : BigInt(`0x${highest}`);
    } catch (error) {
      this.failed(error as Error);
      return failSafe;
    }
  }

  private keyOf(key: string): string {
    return `${this.options.keyPrefix}ryw:${key}`;
  }

  /** A reply within REDIS_TIMEOUT_MS, or a rejection. */
  private bounded<T>(work: Promise<T>): Promise<T> {
    return within(work, this.options.timeoutMs, `Redis did not answer within ${this.options.timeoutMs} ms`);
  }

  private failed(error: Error, counted = true): void {
    if (counted) this.errors?.inc();
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn({ msg: 'read-your-writes store unreachable: reads in a read scope go to the primary', error: error.message });
  }
}
