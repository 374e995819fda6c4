import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobsService } from '../../jobs/jobs.service';
import { EventsService } from './events.service';
import { DELIVER_EVENT } from './integration-event.job-spec';

@Injectable()
export class DeliverEventJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobsService,
    private readonly events: EventsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(DELIVER_EVENT, ({ eventId }, { attempt, maxAttempts }) => this.events.deliver(eventId, attempt, maxAttempts));
  }
}
