import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { JsonReplyAdapter } from './common/http/json-reply.adapter';
import { setupApp } from './app.setup';
import { PinoNestLogger } from './common/logging/logger';
import { configureSecretCipher } from './common/crypto/secret-cipher';
import { checkEncryptionKey } from './common/crypto/secret-columns';
import { AppConfig } from './config/app-config';
import { runMigrations, runMigrationsAt } from './database/data-source';
import { AdminService } from './modules/admin/admin.service';

/**
 * Builds the HTTP application on a database URL: modules, pipeline, migrations (when enabled)
 * and the environment bootstrap. Shared by `main.ts`, the e2e tests and the benchmark.
 */
export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  logger: Logger,
  // Session-level work (the migrations' advisory lock, LISTEN) when databaseUrl is a transaction pooler.
  directUrl = config.databaseDirectUrl ?? databaseUrl,
): Promise<NestExpressApplication> {
  // Before anything reads or writes a secret (the migrations included): a bad key stops the start here.
  const cipher = configureSecretCipher(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl, directUrl), new JsonReplyAdapter(), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
    abortOnError: false,
  });
  setupApp(app, config, logger);

  if (config.migrationsRun) {
    const applied = directUrl === databaseUrl ? await runMigrations(app.get(DataSource)) : await runMigrationsAt(directUrl);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  // The key must open the secrets already stored (a ConfigError naming the key ids, never a key).
  const dataSource = app.get(DataSource);
  try {
    await checkEncryptionKey((sql, parameters) => dataSource.query(sql, parameters), cipher);
  } catch (error) {
    await app.close();
    throw error;
  }
  if (config.bootstrap) {
    const result = await app.get(AdminService).bootstrap(config.bootstrap);
    logger.info({ organizationId: result.organizationId, userId: result.userId, tokenIssued: result.token !== null }, 'bootstrap checked');
  }
  return app;
}
