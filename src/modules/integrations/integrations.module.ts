import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { IntegrationEvent } from './integration-event.entity';
import { IntegrationInstallation } from './integration-installation.entity';
import { IntegrationSiteInstallation } from './integration-site-installation.entity';
import { IntegrationSpaceInstallation } from './integration-space-installation.entity';
import { IntegrationToken } from './integration-token.entity';
import { Integration } from './integration.entity';
import { IntegrationsController } from './integrations.controller';
import { IntegrationsRepository } from './integrations.repository';
import { IntegrationsService } from './integrations.service';
import { ScriptSandbox } from './runtime/script-sandbox';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Integration,
      IntegrationInstallation,
      IntegrationSpaceInstallation,
      IntegrationSiteInstallation,
      IntegrationEvent,
      IntegrationToken,
    ]),
    OrganizationsModule,
    OutboundModule,
  ],
  controllers: [IntegrationsController],
  providers: [IntegrationsRepository, IntegrationsService, ScriptSandbox],
})
export class IntegrationsModule {}
