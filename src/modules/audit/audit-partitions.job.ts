import { Injectable, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { AuditPartitionsService } from './audit-partitions.service';

/** Partition upkeep of the audit log, every hour (once across replicas): months ahead, and those past the retention. */
export const MAINTAIN_AUDIT_PARTITIONS = defineMaintenanceJob('audit.maintain-partitions', '11 * * * *', 15 * 60);

@Injectable()
export class AuditPartitionsJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobsService,
    private readonly partitions: AuditPartitionsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(MAINTAIN_AUDIT_PARTITIONS, () => this.partitions.maintain());
  }
}
