import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { Site } from '../sites/site.entity';
import { InsightsFoldService } from './insights-fold.service';
import { InsightsIngestGate } from './insights-ingest.gate';
import { InsightsPartitionsJob } from './insights-partitions.job';
import { InsightsPartitionsService } from './insights-partitions.service';
import { InsightsController } from './insights.controller';
import { InsightsRepository } from './insights.repository';
import { InsightsService } from './insights.service';

/**
 * Site insights: events in a time-partitioned table, folded into minute and hourly rollups behind a
 * watermark, aggregates compiled to one query. Its tables have no entities (a partitioned append log without a key, rollups written by
 * SQL only); it reads the sites module's `Site` for the organization check.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Site]), OrganizationsModule],
  controllers: [InsightsController],
  providers: [InsightsRepository, InsightsService, InsightsPartitionsService, InsightsPartitionsJob, InsightsFoldService, InsightsIngestGate],
  exports: [InsightsService, InsightsFoldService],
})
export class InsightsModule {}
