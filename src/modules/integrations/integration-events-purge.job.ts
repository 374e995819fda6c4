import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { EventsService } from './events.service';

/**
 * The purge of integration events past `INTEGRATION_EVENT_RETENTION_DAYS` (deliveries, renders,
 * public-endpoint calls and script fetches alike): every hour by pg-boss's cron, once across replicas.
 */
export const PURGE_INTEGRATION_EVENTS = defineMaintenanceJob('integrations.purge-events', '17 * * * *');

@Injectable()
export class PurgeIntegrationEventsJob implements OnModuleInit {
  private readonly logger = new Logger(PurgeIntegrationEventsJob.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly events: EventsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(PURGE_INTEGRATION_EVENTS, () => this.run());
  }

  async run(): Promise<void> {
    const purged = await this.events.purgeExpired();
    if (purged > 0) this.logger.log({ msg: 'purged integration events past the retention period', purged });
  }
}
