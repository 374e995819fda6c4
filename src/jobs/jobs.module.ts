import { Global, Module } from '@nestjs/common';
import { JobsMetrics } from './jobs.metrics';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

/** The durable job queue, available to every module (global): `JobsService.register` and `send`. */
@Global()
@Module({
  providers: [JobsRepository, JobsService, JobsMetrics],
  exports: [JobsService],
})
export class JobsModule {}
