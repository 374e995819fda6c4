import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AppModule } from '../../../src/app.module';
import { PinoNestLogger, createLogger } from '../../../src/common/logging/logger';
import { configureSecretCipher } from '../../../src/common/crypto/secret-cipher';
import { AppConfig, loadConfig } from '../../../src/config/app-config';
import { FAST_DATABASE_URL } from './global-setup';
import { routePool, SharedConnection } from './shared-connection';

export interface FastApp {
  context: INestApplicationContext;
  config: AppConfig;
  dataSource: DataSource;
  get<T>(type: Type<T>): T;
}

/**
 * The application's modules without an HTTP server, on the fast tier's database, built once for the file;
 * each test runs in a transaction rolled back at its end (`shared-connection.ts`). Call at the top of a
 * `describe`; the returned object is filled in `beforeAll`.
 */
export function useFastApp(env: Record<string, string> = {}): FastApp {
  const fast = {} as FastApp;
  let shared: SharedConnection | undefined;
  let unroute: (() => void) | undefined;

  beforeAll(async () => {
    const url = process.env[FAST_DATABASE_URL];
    if (!url) throw new Error(`${FAST_DATABASE_URL} is not set: run fast tests through jest's fast project (npm run test:fast)`);
    const config = loadConfig({
      PUBLIC_URL: 'http://quire.test',
      APP_URL: 'http://app.quire.test',
      LOG_LEVEL: 'silent',
      MIGRATIONS_RUN: 'false',
      JOBS_ENABLED: 'false',
      INSIGHTS_FOLD_INTERVAL_MS: '0',
      DATABASE_POOL_SIZE: '2',
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY as string,
      ...env,
    });
    configureSecretCipher(config);
    const context = await NestFactory.createApplicationContext(AppModule.forRoot(config, url), {
      logger: new PinoNestLogger(createLogger(config.logLevel)),
      abortOnError: false,
    });
    await context.init();
    Object.assign(fast, { context, config, dataSource: context.get(DataSource), get: <T>(type: Type<T>) => context.get(type, { strict: false }) });
  });

  beforeEach(async () => {
    const pool = (fast.dataSource.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    await client.query('BEGIN');
    shared = new SharedConnection(client);
    unroute = routePool(fast.dataSource, shared);
  });

  afterEach(async () => {
    unroute?.();
    unroute = undefined;
    if (!shared) return;
    // Whatever a test left queued finishes first; then nothing it wrote survives it.
    await shared.serial(async () => undefined);
    await shared.client.query('ROLLBACK');
    shared.client.release();
    shared = undefined;
  });

  afterAll(async () => {
    await fast.context?.close();
  });

  return fast;
}
