import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuditRepository } from './audit.repository';

/** Months of partitions kept ready ahead of now, so a write never meets a missing partition. */
export const AUDIT_PARTITIONS_AHEAD_MONTHS = 3;

/**
 * The monthly partitions of `audit_events` (as `insights_events`): created ahead (at start and by the
 * hourly job) and detached then dropped once they end more than AUDIT_RETENTION_DAYS ago (0: kept forever).
 */
@Injectable()
export class AuditPartitionsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly events: AuditRepository,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.ensureAhead();
    } catch (error) {
      this.logger.warn({ msg: 'could not create the audit partitions ahead; the hourly job will retry', err: error });
    }
  }

  async ensureAhead(now = new Date()): Promise<number> {
    const ahead = new Date(now);
    ahead.setUTCMonth(ahead.getUTCMonth() + AUDIT_PARTITIONS_AHEAD_MONTHS);
    return this.events.ensurePartitions(now, ahead);
  }

  /** Partitions wholly older than the retention are detached and dropped; returns the end of the newest dropped (null: none). */
  async dropExpired(now = new Date()): Promise<Date | null> {
    if (this.config.auditRetentionDays === 0) return null;
    const cutoff = new Date(now.getTime() - this.config.auditRetentionDays * 86_400_000);
    return this.events.dropPartitionsBefore(cutoff);
  }

  async maintain(now = new Date()): Promise<void> {
    const created = await this.ensureAhead(now);
    const droppedUntil = await this.dropExpired(now);
    if (created > 0 || droppedUntil) this.logger.log({ msg: 'audit partitions maintained', created, droppedUntil });
  }
}
