import { AppConfig } from '../../config/app-config';
import { Global, Module } from '@nestjs/common';
import { SITE_VIEWS } from '../insights/site-views.port';
import { SITE_SCRIPTS } from '../sites/site-scripts.port';
import { SITE_VISITOR_AUTH } from '../sites/visitor-auth.port';
import { VisitorAuthService } from './visitor-auth.service';
import { SiteViewListener } from './site-view.listener';
import { APP_GUARD } from '@nestjs/core';
import { ScriptScopeGuard } from './script-auth/script-scope.guard';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { SpaceContentListener } from './space-content.listener';
import { PublishedScriptsService } from './published-scripts.service';
import { SpaceIntegrationsController } from './space-integrations.controller';
import { SpaceIntegrationsService } from './space-integrations.service';
import { EventsController } from './events.controller';
import { SiteIntegrationsController } from './site-integrations.controller';
import { scriptEnvironment } from './runtime/environment.presenter';
import { SCRIPT_ENVIRONMENT, type ScriptEnvironmentShaper } from './runtime/environment.read-model';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { InstallationsController } from './installations.controller';
import { InstallationsRepository } from './installations.repository';
import { InstallationsService } from './installations.service';
import { IntegrationEvent } from './integration-event.entity';
import { DeliverEventJob } from './integration-events.job';
import { PurgeIntegrationEventsJob } from './integration-events-purge.job';
import { IntegrationInstallation } from './integration-installation.entity';
import { IntegrationSiteInstallation } from './integration-site-installation.entity';
import { IntegrationSpaceInstallation } from './integration-space-installation.entity';
import { IntegrationToken } from './integration-token.entity';
import { IntegrationTokensService } from './integration-tokens.service';
import { IntegrationTokensRepository } from './integration-tokens.repository';
import { Integration } from './integration.entity';
import { IntegrationsController } from './integrations.controller';
import { IntegrationsRepository } from './integrations.repository';
import { IntegrationsService } from './integrations.service';
import { PublicEndpointController } from './public-endpoint.controller';
import { PublicEndpointService } from './public-endpoint.service';
import { RenderController } from './render.controller';
import { RenderService } from './render.service';
import { ScriptDispatcher } from './runtime/script-dispatcher';
import { ScriptSandbox } from './runtime/script-sandbox';

/** Global only to provide the ports of modules below it: sites' `SITE_SCRIPTS`, published's `SITE_VISITOR_AUTH` and insights' `SITE_VIEWS` (neither can import this module). */
@Global()
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
    AccessModule,
    SpaceWritesModule,
    OutboundModule,
  ],
  controllers: [
    IntegrationsController,
    InstallationsController,
    EventsController,
    RenderController,
    PublicEndpointController,
    SpaceIntegrationsController,
    SiteIntegrationsController,
  ],
  providers: [
    IntegrationsRepository,
    InstallationsRepository,
    EventsRepository,
    IntegrationsService,
    InstallationsService,
    EventsService,
    DeliverEventJob,
    PurgeIntegrationEventsJob,
    {
      provide: SCRIPT_ENVIRONMENT,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ScriptEnvironmentShaper => ({
        shape: (subjects, secret, tokens) => scriptEnvironment(config, subjects, secret, tokens),
      }),
    },
    IntegrationTokensService,
    IntegrationTokensRepository,
    RenderService,
    PublicEndpointService,
    ScriptSandbox,
    ScriptDispatcher,
    SpaceContentListener,
    PublishedScriptsService,
    SpaceIntegrationsService,
    { provide: APP_GUARD, useClass: ScriptScopeGuard },
    { provide: SITE_SCRIPTS, useExisting: PublishedScriptsService },
    VisitorAuthService,
    { provide: SITE_VISITOR_AUTH, useExisting: VisitorAuthService },
    { provide: SITE_VIEWS, useClass: SiteViewListener },
  ],
  exports: [EventsService, InstallationsRepository, IntegrationsRepository, PublishedScriptsService, SITE_SCRIPTS, SITE_VIEWS, SITE_VISITOR_AUTH],
})
export class IntegrationsModule {}
