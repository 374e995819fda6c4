import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { RATE_LIMIT_STORE, type RateLimitStore, type WindowRecord } from './rate-limit.store';

export interface Usage {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

/**
 * The counters' rules shared by the rate-limit guard (before authentication) and the authenticators
 * (after it): the per-installation budget of script tokens, known only once a token names its
 * installation, and the failed-authentication lockout, which refuses only a failing attempt.
 */
/** Told of each failed authentication of an address at or past the lockout (`failures`: its count, null when refused by the lockout). */
export type LockedOutFailureListener = (request: Request, failures: number | null) => void;

@Injectable()
export class RateLimiter {
  private readonly lockedOutListeners: LockedOutFailureListener[] = [];

  constructor(
    @Inject(RATE_LIMIT_STORE) readonly storage: RateLimitStore,
    private readonly config: AppConfig,
  ) {}

  /**
   * Charges one call of a script token to its installation (every call of its tokens, from the
   * sandbox or not); throws 429 past `RATE_LIMIT_PER_INSTALLATION` per window. In memory: no query,
   * no promise; on Redis, one round trip.
   */
  chargeInstallation(installationId: string, response: Response | undefined): void | Promise<void> {
    const { perInstallation, windowMs } = this.config.rateLimit;
    if (perInstallation <= 0) return;
    const record = this.storage.hit(`installation:${installationId}`, windowMs, perInstallation, 0, 'installation');
    return record instanceof Promise
      ? record.then((taken) => this.judgeInstallation(taken, perInstallation, response))
      : this.judgeInstallation(record, perInstallation, response);
  }

  private judgeInstallation(record: WindowRecord, perInstallation: number, response: Response | undefined): void {
    const usage = { limit: perInstallation, remaining: Math.max(0, perInstallation - record.totalHits), reset: Math.max(0, record.timeToExpire) };
    if (record.totalHits > perInstallation) {
      this.refuse(response, usage, Math.max(1, usage.reset), 'Too many requests for this integration installation');
    }
    if (response) setLimitHeaders(response, usage);
  }

  /**
   * The failed-authentication lockout at the rate-limit guard, in one place: `blockedFor` seconds left
   * (0: none). A locked-out address is refused at once when it has no token to try or calls a public
   * route (nothing could pass); with a token, the mark on the request lets the authenticator refuse it
   * only if the token fails (`refuseIfLockedOut`).
   */
  applyLockout(request: Request, response: Response, blockedFor: number, hasToken: boolean, isPublic: boolean): void {
    if (blockedFor <= 0) return;
    if (this.lockoutRefusesAtOnce(hasToken, isPublic)) {
      this.refuse(
        response,
        { limit: this.config.rateLimit.authFailures, remaining: 0, reset: blockedFor },
        blockedFor,
        'Too many failed authentications from this address',
      );
    }
    request.authLockout = blockedFor;
  }

  /**
   * Counts one failed authentication (a 401) of an address (`key`, `auth-failure:<address>`): the one
   * place a lockout starts, when this hit is the one past AUTH_FAILURE_LIMIT (the record then blocked
   * for the failure window). On Redis the hit is a promise that never rejects (the store counts its
   * own failures): nothing waits for it.
   */
  recordAuthFailure(key: string, request?: Request): void {
    const { authFailures, authFailureWindowMs } = this.config.rateLimit;
    const record = this.storage.hit(key, authFailureWindowMs, authFailures - 1, authFailureWindowMs, 'auth-failure');
    if (!request || this.lockedOutListeners.length === 0) return;
    const judge = (taken: WindowRecord) => {
      if (taken.totalHits >= authFailures) this.lockedOut(request, taken.totalHits);
    };
    if (record instanceof Promise) void record.then(judge, () => undefined);
    else judge(record);
  }

  /** Listens to failed authentications past the lockout: the one that trips it, and those it then refuses (the audit log's sign-in failures). */
  onLockedOutFailure(listener: LockedOutFailureListener): void {
    this.lockedOutListeners.push(listener);
  }

  private lockedOut(request: Request, failures: number | null): void {
    for (const listener of this.lockedOutListeners) listener(request, failures);
  }

  /** Whether a lockout refuses the request at the guard, before its budgets are counted. */
  lockoutRefusesAtOnce(hasToken: boolean, isPublic: boolean): boolean {
    return !hasToken || isPublic;
  }

  /**
   * Called where authentication failed: an address locked out for failed authentications gets its
   * 429 here, so that the lockout refuses failing attempts only and a valid token still passes.
   */
  refuseIfLockedOut(request: Request, response: Response): void {
    const blockedFor = request.authLockout;
    if (!blockedFor) return;
    this.lockedOut(request, null);
    this.refuse(
      response,
      { limit: this.config.rateLimit.authFailures, remaining: 0, reset: blockedFor },
      blockedFor,
      'Too many failed authentications from this address',
    );
  }

  refuse(response: Response | undefined, usage: Usage, retryAfter: number, message: string): never {
    if (response) {
      setLimitHeaders(response, usage);
      response.setHeader('Retry-After', String(retryAfter));
    }
    throw new ThrottlerException(`${message}; retry after ${retryAfter} seconds`);
  }
}

export function setLimitHeaders(response: Response, usage: Usage): void {
  response.setHeader('RateLimit-Limit', String(usage.limit));
  response.setHeader('RateLimit-Remaining', String(usage.remaining));
  response.setHeader('RateLimit-Reset', String(usage.reset));
}
