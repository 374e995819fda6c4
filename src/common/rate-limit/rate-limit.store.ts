/** One counter after a hit (the shape `@nestjs/throttler`'s storage answers). */
export interface WindowRecord {
  totalHits: number;
  /** Seconds until the window ends. */
  timeToExpire: number;
  isBlocked: boolean;
  /** Seconds until a block ends; 0 when not blocked. */
  timeToBlockExpire: number;
}

/** A budget to charge one request to: `key` of counter `name`, `limit` per `windowMs`, no block. */
export interface BudgetHit {
  name: string;
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * What a request's check reads: the seconds its lockout stays (0: none) and a hit on each budget;
 * `records` is empty when a lockout that refuses at once was found (nothing counted).
 */
export interface Taken {
  blockedFor: number;
  records: WindowRecord[];
}

/**
 * Where the rate-limit and lockout counters live: this process's memory (`FixedWindowStorage`,
 * answered synchronously) or Redis shared by every replica (`RedisWindowStorage`, one round trip,
 * never rejecting: an unreachable Redis answers "nothing counted", so limits fail open).
 */
export interface RateLimitStore {
  /** Counts one hit of `key` on counter `name`; past `limit`, blocks it for `blockMs` (0: the window runs on). */
  hit(key: string, windowMs: number, limit: number, blockMs: number, name: string): WindowRecord | Promise<WindowRecord>;
  /**
   * Reads the block of `lockout` (if any) and counts one hit on each budget, together; when the lockout
   * holds and `refusesAtOnce`, counts nothing (the request is refused without reaching its budgets).
   */
  take(lockout: { key: string; name: string; refusesAtOnce: boolean } | undefined, budgets: readonly BudgetHit[]): Taken | Promise<Taken>;
}

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
