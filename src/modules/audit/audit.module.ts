import { Module } from '@nestjs/common';
import { IntegrationsModule } from '../integrations/integrations.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { AuditController } from './audit.controller';
import { AuditDeliveryRepository } from './audit-delivery.repository';
import { AuditDeliveryService } from './audit-delivery.service';
import { AuditSignInRepository } from './audit-sign-in.repository';
import { AuditSignInService } from './audit-sign-in.service';
import { AuditPartitionsJob } from './audit-partitions.job';
import { AuditPartitionsService } from './audit-partitions.service';
import { AuditRepository } from './audit.repository';
import { AuditSealerService } from './audit-sealer.service';
import { AuditService } from './audit.service';

/** The audit log's reads, export, sealing, retention and delivery to integrations (`audit_event`); recording is `common/audit` (every module records). */
@Module({
  imports: [OrganizationsModule, IntegrationsModule],
  controllers: [AuditController],
  providers: [
    AuditService,
    AuditRepository,
    AuditSealerService,
    AuditPartitionsService,
    AuditPartitionsJob,
    AuditDeliveryRepository,
    AuditDeliveryService,
    AuditSignInRepository,
    AuditSignInService,
  ],
  exports: [AuditSealerService, AuditDeliveryService, AuditSignInService],
})
export class AuditModule {}
