import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { InsightsRepository } from './insights.repository';

/** Months of partitions kept ready ahead of now, so ingestion never meets a missing partition. */
export const PARTITIONS_AHEAD_MONTHS = 3;

/**
 * The time partitions of `insights_events`: created ahead (at start and by the hourly job) and dropped
 * once they end more than INSIGHTS_RETENTION_DAYS ago (0: kept forever).
 */
@Injectable()
export class InsightsPartitionsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(InsightsPartitionsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly repository: InsightsRepository,
  ) {}

  /**
   * A server started long after its last migration still has the current window before it takes events.
   * A failure here does not stop the start (the migration made the first window; the hourly job retries).
   */
  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.ensureAhead();
    } catch (error) {
      this.logger.warn({ msg: 'could not create the insights partitions ahead; the hourly job will retry', err: error });
    }
  }

  async ensureAhead(now = new Date()): Promise<number> {
    const ahead = new Date(now);
    ahead.setUTCMonth(ahead.getUTCMonth() + PARTITIONS_AHEAD_MONTHS);
    return this.dataSource.transaction((em) => this.repository.ensurePartitions(em, now, ahead));
  }

  /** The partitions and rollups of events older than the retention go; a partition goes whole, once all of it is past. */
  async dropExpired(now = new Date()): Promise<Date | null> {
    if (this.config.insightsRetentionDays === 0) return null;
    const cutoff = new Date(now.getTime() - this.config.insightsRetentionDays * 86_400_000);
    return this.dataSource.transaction((em) => this.repository.dropPartitionsBefore(em, cutoff));
  }

  async maintain(now = new Date()): Promise<void> {
    const created = await this.ensureAhead(now);
    const droppedUntil = await this.dropExpired(now);
    if (created > 0 || droppedUntil) this.logger.log({ msg: 'insights partitions maintained', created, droppedUntil });
  }
}
