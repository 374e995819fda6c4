import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { normalizeIp, ThrottlerException } from '@nestjs/throttler';
import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { routeMetadata } from '../metadata/route-metadata';
import { FixedWindowStorage } from './fixed-window.storage';
import { RATE_LIMIT_EXEMPT } from './rate-limit-exempt.decorator';

/** Where a response's 401 is counted, kept on the response so the listener is one shared function. */
const AUTH_FAILURE = Symbol('quire.authFailure');
interface FailureCounted {
  [AUTH_FAILURE]?: { storage: FixedWindowStorage; key: string; limit: number; windowMs: number };
}

function countAuthFailure(this: Response & FailureCounted): void {
  const failure = this[AUTH_FAILURE];
  if (failure && this.statusCode === 401) failure.storage.hit(failure.key, failure.windowMs, failure.limit - 1, failure.windowMs, 'auth-failure');
}

interface Budget {
  name: string;
  key: string;
  limit: number;
  windowMs: number;
}

interface Usage {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

/**
 * Rate limits, checked before authentication (a global guard registered ahead of the bearer guard):
 * requests per window per client address and per token (keyed by the token's SHA-256, never the
 * token), and a much smaller budget of failed authentications (401s) per address, past which the
 * address is refused for the failure window whatever it sends. Counters live in memory per
 * replica (`FixedWindowStorage`, behind the throttler's storage interface). Answers 429 with `Retry-After` and
 * `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` (the tightest budget); those three
 * headers go on every limited response.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly isExempt: (context: ExecutionContext) => boolean | undefined;

  constructor(
    reflector: Reflector,
    private readonly storage: FixedWindowStorage,
    private readonly config: AppConfig,
  ) {
    this.isExempt = routeMetadata<boolean>(reflector, RATE_LIMIT_EXEMPT);
  }

  /** Synchronous: the counters are in memory, so a request goes through without a promise of its own. */
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    if (this.isExempt(context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const { rateLimit } = this.config;
    const address = normalizeIp(request.ip ?? request.socket.remoteAddress ?? 'unknown');

    const failures = this.authFailureKey(address);
    if (rateLimit.authFailures > 0) {
      const blockedFor = this.storage.blockedSeconds(failures, 'auth-failure');
      if (blockedFor > 0) {
        this.refuse(
          response,
          { limit: rateLimit.authFailures, remaining: 0, reset: blockedFor },
          blockedFor,
          'Too many failed authentications from this address',
        );
      }
      // Counted once the answer is known, whoever produced the 401.
      (response as FailureCounted)[AUTH_FAILURE] = {
        storage: this.storage,
        key: failures,
        limit: rateLimit.authFailures,
        windowMs: rateLimit.authFailureWindowMs,
      };
      response.once('finish', countAuthFailure);
    }

    const budgets: Budget[] = [];
    if (rateLimit.perAddress > 0) budgets.push({ name: 'address', key: `address:${address}`, limit: rateLimit.perAddress, windowMs: rateLimit.windowMs });
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (secret && rateLimit.perToken > 0) {
      budgets.push({ name: 'token', key: `token:${hash('sha256', secret, 'hex')}`, limit: rateLimit.perToken, windowMs: rateLimit.windowMs });
    }

    let tightest: Usage | undefined;
    for (const budget of budgets) {
      // blockDuration 0: a request over the budget is refused, and the window runs on as usual.
      const record = this.storage.hit(budget.key, budget.windowMs, budget.limit, 0, budget.name);
      const usage = { limit: budget.limit, remaining: Math.max(0, budget.limit - record.totalHits), reset: Math.max(0, record.timeToExpire) };
      if (record.isBlocked || record.totalHits > budget.limit) {
        // A fixed window: the budget comes back whole when the window ends.
        const retryAfter = Math.max(1, record.timeToBlockExpire || usage.reset);
        this.refuse(response, usage, retryAfter, `Too many requests for this ${budget.name === 'token' ? 'token' : 'address'}`);
      }
      if (!tightest || usage.remaining < tightest.remaining) tightest = usage;
    }
    if (tightest) this.setHeaders(response, tightest);
    return true;
  }

  private authFailureKey(address: string): string {
    return `auth-failure:${address}`;
  }

  private refuse(response: Response, usage: Usage, retryAfter: number, message: string): never {
    this.setHeaders(response, usage);
    response.setHeader('Retry-After', String(retryAfter));
    throw new ThrottlerException(`${message}; retry after ${retryAfter} seconds`);
  }

  private setHeaders(response: Response, usage: Usage): void {
    response.setHeader('RateLimit-Limit', String(usage.limit));
    response.setHeader('RateLimit-Remaining', String(usage.remaining));
    response.setHeader('RateLimit-Reset', String(usage.reset));
  }
}
