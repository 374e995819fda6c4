import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { AuditRecorder } from '../../common/audit/audit-recorder';
import { clientAddress } from '../../common/http/client-address';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../../common/rate-limit/rate-limit.store';
import { AppConfig } from '../../config/app-config';
import { AuditSignInRepository } from './audit-sign-in.repository';

export const SIGN_IN_FAILED_ACTION = 'sign_in.failed_above_lockout';

/**
 * Sign-in failures above the lockout (decision 0064): when an address's failed authentications reach
 * AUTH_FAILURE_LIMIT, each failing attempt from then on whose token is a known row of an organization
 * (a script token of one of its installations, expired or orphaned) records `sign_in.failed_above_lockout`
 * in that organization's log, at most once per organization and address per failure window (an
 * attacker cannot flood the log). Off the request's path: the refusal never waits for it.
 */
@Injectable()
export class AuditSignInService implements OnModuleInit {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly limiter: RateLimiter,
    @Inject(RATE_LIMIT_STORE) private readonly storage: RateLimitStore,
    private readonly owners: AuditSignInRepository,
    private readonly recorder: AuditRecorder,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (!this.config.auditEnabled) return;
    this.limiter.onLockedOutFailure((request, failures) => {
      const tokenHash = request.bearerTokenHash;
      if (!tokenHash) return;
      const recording = this.record(request, tokenHash, failures).catch((error: unknown) =>
        this.logger.warn({ msg: 'could not record a sign-in failure', err: error }),
      );
      this.pending.add(recording);
      void recording.finally(() => this.pending.delete(recording));
    });
  }

  /** Recordings under way (tests wait for them). */
  readonly pending = new Set<Promise<void>>();

  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async record(request: Request, tokenHash: string, failures: number | null): Promise<void> {
    const owner = await this.owners.scriptTokenOwner(tokenHash);
    if (!owner) return;
    const address = normalizeIp(clientAddress(request) ?? 'unknown');
    const { authFailureWindowMs } = this.config.rateLimit;
    const seen = await this.storage.hit(`audit-sign-in:${owner.organizationId}:${address}`, authFailureWindowMs, 1, 0, 'audit-sign-in');
    if (seen.totalHits > 1) return;
    const userAgent = request.headers['user-agent'];
    await this.dataSource.transaction((em) =>
      this.recorder.record(em, {
        organizationId: owner.organizationId,
        action: SIGN_IN_FAILED_ACTION,
        actor: { type: 'system', id: 'anonymous', label: address },
        source: 'api',
        target: { type: 'integration-installation', id: owner.installationId, label: owner.integrationName },
        details: { tokenKind: 'integration', limit: this.config.rateLimit.authFailures, ...(failures !== null && { failures }) },
        executionId: 'authenticate',
        ip: address,
        userAgent: typeof userAgent === 'string' ? userAgent : null,
      }),
    );
  }
}
