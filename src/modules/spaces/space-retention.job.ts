import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { SpaceRetentionService } from './space-retention.service';

/**
 * The purge of deleted spaces past the retention period: sent every hour by pg-boss's cron (once
 * across replicas) and run by one worker. `stately`: a purge waiting while another is due is not
 * queued twice. A failed purge is retried with backoff; the purge itself works in batches.
 */
export const PURGE_DELETED_SPACES = defineMaintenanceJob('spaces.purge-deleted', '0 * * * *');

@Injectable()
export class SpaceRetentionJob implements OnModuleInit {
  private readonly logger = new Logger(SpaceRetentionJob.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly retention: SpaceRetentionService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(PURGE_DELETED_SPACES, () => this.run());
  }

  async run(): Promise<void> {
    const { ran, purged } = await this.retention.purgeExpired();
    if (ran && purged > 0) this.logger.log({ msg: 'purged deleted spaces past the retention period', purged });
  }
}
