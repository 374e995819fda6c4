import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { organizationsToSeal, sealOrganization } from './audit-chain';

/** How often each replica seals what was recorded meanwhile (replicas take turns per organization, on its chain row). */
export const AUDIT_SEAL_INTERVAL_MS = 5_000;

/**
 * Gives recorded events their place in their organization's hash chain, a few seconds after they
 * commit. Every replica runs it; the lock of the organization's `audit_chains` row makes them take
 * turns, and a sealed event is never sealed again.
 */
@Injectable()
export class AuditSealerService {
  private readonly logger = new Logger('Audit');
  private running = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Interval('seal-audit-events', AUDIT_SEAL_INTERVAL_MS)
  async sealAll(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      let sealed = 0;
      for (const organizationId of await organizationsToSeal(this.dataSource)) sealed += await sealOrganization(this.dataSource, organizationId);
      return sealed;
    } catch (error) {
      this.logger.warn({ msg: 'audit sealing failed; the next run retries', err: error });
      return 0;
    } finally {
      this.running = false;
    }
  }
}
