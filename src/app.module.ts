import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AuthModule } from './common/auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { AdminModule } from './modules/admin/admin.module';
import { OrganizationsModule } from './modules/organizations/organizations.module';
import { UsersModule } from './modules/users/users.module';

/** Domain modules served over HTTP; each later module is added here. */
export const DOMAIN_MODULES = [UsersModule, OrganizationsModule, AdminModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, config.databasePoolSize),
        ScheduleModule.forRoot(),
        AuthModule,
        HealthModule,
        ...DOMAIN_MODULES,
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
