import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { AuditController } from './audit.controller';
import { AuditPartitionsJob } from './audit-partitions.job';
import { AuditPartitionsService } from './audit-partitions.service';
import { AuditRepository } from './audit.repository';
import { AuditSealerService } from './audit-sealer.service';
import { AuditService } from './audit.service';

/** The audit log's reads, export, sealing and retention; recording is `common/audit` (every module records). */
@Module({
  imports: [OrganizationsModule],
  controllers: [AuditController],
  providers: [AuditService, AuditRepository, AuditSealerService, AuditPartitionsService, AuditPartitionsJob],
  exports: [AuditSealerService],
})
export class AuditModule {}
