import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AuditCoreModule } from './common/audit/audit.module';
import { AuthModule } from './common/auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ERROR_STATUSES } from './common/errors/domain-error';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { MetricsModule } from './common/metrics/metrics.module';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ERROR_STATUS } from './error-codes';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { AccessModule } from './modules/access/access.module';
import { AdminModule } from './modules/admin/admin.module';
import { AuditModule } from './modules/audit/audit.module';
import { CommentsModule } from './modules/comments/comments.module';
import { ChangeRequestsModule } from './modules/change-requests/change-requests.module';
import { CollectionsModule } from './modules/collections/collections.module';
import { ContentModule } from './modules/content/content.module';
import { InvitesModule } from './modules/invites/invites.module';
import { MembersModule } from './modules/members/members.module';
import { OpenApiSpecsModule } from './modules/openapi-specs/openapi-specs.module';
import { OrganizationsModule } from './modules/organizations/organizations.module';
import { SamlModule } from './modules/saml/saml.module';
import { InsightsModule } from './modules/insights/insights.module';
import { PublishedModule } from './modules/published/published.module';
import { SiteAuthModule } from './modules/published/site-auth/site-auth.module';
import { SiteReadersModule } from './modules/sites/site-readers.module';
import { SitesModule } from './modules/sites/sites.module';
import { IntegrationsModule } from './modules/integrations/integrations.module';
import { SpacesModule } from './modules/spaces/spaces.module';
import { TeamsModule } from './modules/teams/teams.module';
import { TranslationsModule } from './modules/translations/translations.module';
import { UsersModule } from './modules/users/users.module';

/** Domain modules served over HTTP; each later module is added here. */
export const DOMAIN_MODULES = [
  UsersModule,
  OrganizationsModule,
  AdminModule,
  MembersModule,
  TeamsModule,
  InvitesModule,
  SamlModule,
  TranslationsModule,
  AccessModule,
  CollectionsModule,
  SpacesModule,
  ContentModule,
  ChangeRequestsModule,
  CommentsModule,
  SitesModule,
  SiteReadersModule,
  OpenApiSpecsModule,
  InsightsModule,
  IntegrationsModule,
  // After IntegrationsModule: its global guard (the site-token guard) runs after the script-scope guard.
  PublishedModule,
  AuditModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string, directUrl = databaseUrl): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, config.databasePoolSize, {
          readUrls: config.databaseReadUrls,
          preparedStatements: config.databasePreparedStatements,
          directUrl,
          redis: config.redis,
        }),
        ScheduleModule.forRoot(),
        // Global guards run in this order: rate limits before authentication.
        RateLimitModule,
        AuthModule.forRoot(SiteAuthModule),
        HealthModule,
        JobsModule,
        IdempotencyModule,
        AuditCoreModule,
        MetricsModule,
        ...DOMAIN_MODULES,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: ERROR_STATUSES, useValue: ERROR_STATUS },
      ],
    };
  }
}
