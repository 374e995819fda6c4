import { Injectable, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { InsightsPartitionsService } from './insights-partitions.service';

/**
 * Partition upkeep of insights events, sent every hour by pg-boss's cron (once across replicas):
 * creates the months ahead and drops those past the retention. Idempotent, and serialised in
 * PostgreSQL by an advisory lock inside both functions.
 */
export const MAINTAIN_INSIGHTS_PARTITIONS = defineMaintenanceJob('insights.maintain-partitions', '7 * * * *', 15 * 60);

@Injectable()
export class InsightsPartitionsJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobsService,
    private readonly partitions: InsightsPartitionsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(MAINTAIN_INSIGHTS_PARTITIONS, () => this.partitions.maintain());
  }
}
