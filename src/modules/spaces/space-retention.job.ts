import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { SpaceRetentionService } from './space-retention.service';

/** Runs the purge of deleted spaces every hour on every replica; the purge lock lets one of them work. */
@Injectable()
export class SpaceRetentionJob {
  private readonly logger = new Logger(SpaceRetentionJob.name);

  constructor(private readonly retention: SpaceRetentionService) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'purge-deleted-spaces' })
  async run(): Promise<void> {
    try {
      const { ran, purged } = await this.retention.purgeExpired();
      if (ran && purged > 0) this.logger.log(`Purged ${purged} space(s) deleted before the retention period`);
    } catch (error) {
      // A failed run is retried by the next one; it must not take the process down.
      this.logger.error(`Purging deleted spaces failed: ${(error as Error).message}`, (error as Error).stack);
    }
  }
}
