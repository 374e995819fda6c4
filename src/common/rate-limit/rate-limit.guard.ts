import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { normalizeIp } from '@nestjs/throttler';
import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { clientAddress } from '../http/client-address';
import { IS_PUBLIC } from '../auth/public.decorator';
import { routeMetadata } from '../metadata/route-metadata';
import { RATE_LIMIT_EXEMPT } from './rate-limit-exempt.decorator';
import { BudgetHit, RATE_LIMIT_STORE, RateLimitStore, Taken } from './rate-limit.store';
import { RateLimiter, setLimitHeaders, Usage } from './rate-limiter';
import { isScriptCall } from './script-call';

/** Prefix of integration script tokens (`integrations/integration-tokens.service.ts`), charged to their installation instead. */
const SCRIPT_TOKEN_PREFIX = 'qit_';

/** Where a response's 401 is counted, kept on the response so the listener is one shared function. */
const AUTH_FAILURE = Symbol('quire.authFailure');
interface FailureCounted {
  [AUTH_FAILURE]?: { limiter: RateLimiter; key: string };
}

function countAuthFailure(this: Response & FailureCounted): void {
  const failure = this[AUTH_FAILURE];
  if (failure && this.statusCode === 401) failure.limiter.recordAuthFailure(failure.key, this.req);
}

interface Budget extends BudgetHit {
  name: 'address' | 'token' | 'scripts';
}

const REFUSALS: Record<Budget['name'], string> = {
  address: 'Too many requests for this address',
  token: 'Too many requests for this token',
  scripts: 'Too many requests from integration scripts',
};

/**
 * Rate limits, checked before authentication (a global guard registered ahead of the bearer guard):
 * requests per window per client address and per user token (keyed by the token's SHA-256, never the
 * token; the hash is left on the request for the authenticator, so a token is hashed once), and a much
 * smaller budget of failed authentications (401s) per address, past which the address's failing
 * attempts are refused for the failure window (a valid token still passes: `RateLimiter.refuseIfLockedOut`
 * is asked where authentication fails).
 *
 * The client address is the socket's, or `X-Forwarded-For` as believed from the proxies `TRUST_PROXY`
 * names (none by default). A script's call back to the API (`script-call.ts` marker) is not its address's
 * call: it is never counted towards nor refused by an address's lockout, its requests go to a pool of all
 * scripts' calls (a replica's scripts share the `RATE_LIMIT_PER_ADDRESS` the loopback address had), and a
 * script token is charged to its installation once authenticated (`RATE_LIMIT_PER_INSTALLATION`).
 * Counters live in memory per replica (`FixedWindowStorage`), or on Redis shared by every replica when
 * REDIS_URL is set (`RedisWindowStorage`: the lockout read and the budgets' hits in one round trip, failing
 * open when Redis does not answer). Answers 429 with `Retry-After` and
 * `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` (the tightest budget); those three
 * headers go on every limited response.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly isExempt: (context: ExecutionContext) => boolean | undefined;
  private readonly isPublic: (context: ExecutionContext) => boolean | undefined;

  constructor(
    reflector: Reflector,
    @Inject(RATE_LIMIT_STORE) private readonly storage: RateLimitStore,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {
    this.isExempt = routeMetadata<boolean>(reflector, RATE_LIMIT_EXEMPT);
    this.isPublic = routeMetadata<boolean>(reflector, IS_PUBLIC);
  }

  /** Synchronous with the counters in memory (a request goes through without a promise of its own); on Redis, one round trip. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (this.isExempt(context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const { rateLimit } = this.config;
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (secret) request.bearerTokenHash = hash('sha256', secret, 'hex');
    const scriptCall = isScriptCall(request);
    const address = normalizeIp(clientAddress(request) ?? 'unknown');

    const isPublic = this.isPublic(context) === true;
    let lockout: { key: string; name: string; refusesAtOnce: boolean } | undefined;
    if (!scriptCall && rateLimit.authFailures > 0) {
      // Without a token to try (or on a public route) nothing could pass a lockout: refused before any budget counts.
      lockout = { key: `auth-failure:${address}`, name: 'auth-failure', refusesAtOnce: this.limiter.lockoutRefusesAtOnce(secret !== undefined, isPublic) };
      // Counted once the answer is known, whoever produced the 401.
      (response as FailureCounted)[AUTH_FAILURE] = { limiter: this.limiter, key: lockout.key };
      response.once('finish', countAuthFailure);
    }

    const budgets: Budget[] = [];
    if (rateLimit.perAddress > 0) {
      budgets.push(
        scriptCall
          ? { name: 'scripts', key: 'scripts', limit: rateLimit.perAddress, windowMs: rateLimit.windowMs }
          : { name: 'address', key: `address:${address}`, limit: rateLimit.perAddress, windowMs: rateLimit.windowMs },
      );
    }
    // Script tokens are minted per call: their budget is their installation's (`RateLimiter.chargeInstallation`).
    if (secret && rateLimit.perToken > 0 && !secret.startsWith(SCRIPT_TOKEN_PREFIX)) {
      budgets.push({ name: 'token', key: `token:${request.bearerTokenHash}`, limit: rateLimit.perToken, windowMs: rateLimit.windowMs });
    }

    const taken = this.storage.take(lockout, budgets);
    const judge = ({ blockedFor, records }: Taken): boolean => {
      this.limiter.applyLockout(request, response, blockedFor, secret !== undefined, isPublic);
      let tightest: Usage | undefined;
      budgets.forEach((budget, i) => {
        const record = records[i];
        const usage = { limit: budget.limit, remaining: Math.max(0, budget.limit - record.totalHits), reset: Math.max(0, record.timeToExpire) };
        if (record.isBlocked || record.totalHits > budget.limit) {
          // A fixed window: the budget comes back whole when the window ends.
          const retryAfter = Math.max(1, record.timeToBlockExpire || usage.reset);
          this.limiter.refuse(response, usage, retryAfter, REFUSALS[budget.name]);
        }
        if (!tightest || usage.remaining < tightest.remaining) tightest = usage;
      });
      if (tightest) setLimitHeaders(response, tightest);
      return true;
    };
    return taken instanceof Promise ? taken.then(judge) : judge(taken);
  }
}
