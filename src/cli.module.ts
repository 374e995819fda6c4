import { DynamicModule, Module } from '@nestjs/common';
import { AuditCoreModule } from './common/audit/audit.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { AdminModule } from './modules/admin/admin.module';

/** The slice of the application the admin CLI needs: configuration, database, the audit recorder and operator actions. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, 2, { preparedStatements: config.databasePreparedStatements }),
        AuditCoreModule,
        AdminModule,
      ],
    };
  }
}
