import { NestExpressApplication } from '@nestjs/platform-express';
import { Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import request, { type Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { createLogger } from '../../src/common/logging/logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { directEnv, TEST_DATABASE_URL } from './database';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  dataSource: DataSource;
  http: TestAgent;
  close(): Promise<void>;
}

/**
 * The real application on the run's database, served in-process on 127.0.0.1 (`port`, default a free one);
 * `env` overrides configuration.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  logDestination?: DestinationStream,
  rewriteDatabaseUrl: (url: string) => string = (url) => url,
  port = 0,
): Promise<TestApp> {
  const testDatabaseUrl = process.env[TEST_DATABASE_URL];
  const databaseUrl = testDatabaseUrl && rewriteDatabaseUrl(testDatabaseUrl);
  if (!databaseUrl) throw new Error(`${TEST_DATABASE_URL} is not set: run e2e tests through jest's e2e project`);
  const config = loadConfig({
    PUBLIC_URL: 'http://quire.test',
    APP_URL: 'http://app.quire.test',
    LOG_LEVEL: 'silent',
    MIGRATIONS_RUN: 'false',
    // Limits generous enough that no test meets them, except the rate-limit tests that set their own.
    RATE_LIMIT_PER_ADDRESS: '1000000',
    RATE_LIMIT_PER_TOKEN: '1000000',
    RATE_LIMIT_PER_INSTALLATION: '1000000',
    AUTH_FAILURE_LIMIT: '1000000',
    // No job workers unless the suite asks (`JOBS_ENABLED: 'true'`): a worker of a suite's app still
    // running a job after the app closed would fail in the next suite's time. Queues are still created
    // and jobs still sent. Workers poll every 500 ms (pg-boss's minimum), so tests waiting on a job wait little.
    JOBS_ENABLED: 'false',
    JOBS_POLL_INTERVAL_MS: '500',
    // No insights fold on a timer: it would change rollup rows under a suite comparing snapshots; the
    // insights suites fold by hand (InsightsFoldService.fold).
    INSIGHTS_FOLD_INTERVAL_MS: '0',
    // Every writing route's success must leave its audit event: one that does not answers 500 (common/audit).
    AUDIT_STRICT: 'true',
    // The run's key (test/support/global-setup.ts), so every app opens what the others wrote.
    ENCRYPTION_KEY: process.env.ENCRYPTION_KEY,
    // `npm run test:pgbouncer`: plain statements, and the direct server for session-level work.
    DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
    ...directEnv(databaseUrl),
    ...env,
  });
  const app = await createApp(config, databaseUrl, createLogger(config.logLevel, logDestination));
  await app.init();
  const server = app.getHttpServer() as Server;
  // The client lets a connection go after 1 s idle (KEEP_ALIVE_IDLE_MS), long before the server would: a server
  // closing an idle connection as the client sends on it again fails that request ("socket hang up").
  server.keepAliveTimeout = 60_000;
  await app.listen(port, '127.0.0.1');
  // The server and its kept-alive connections are left out of what keeps the process running: a file that does not
  // close its app ends as it did when supertest closed the server after each request.
  server.unref();
  server.on('connection', (socket) => socket.unref());
  return {
    app,
    config,
    dataSource: app.get(DataSource),
    http: listeningAgent(server),
    close: () => app.close(),
  };
}

/** The base URL of the app's server: `http://127.0.0.1:<port>`. */
export function serverUrl(t: TestApp): string {
  return `http://127.0.0.1:${((t.app.getHttpServer() as Server).address() as AddressInfo).port}`;
}

const KEEP_ALIVE_IDLE_MS = 1000;
const REQUEST_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']);

/**
 * Supertest's agent on the listening server, over kept-alive connections. Given a server that is not listening,
 * supertest listens before each request and closes after it, and superagent opens a connection per request: a bind,
 * a listen, a connect and two closes per request, thousands in a matrix file.
 */
function listeningAgent(server: Server): TestAgent {
  const agent = request(server);
  const connections = new Agent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS });
  server.once('close', () => connections.destroy());
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !REQUEST_METHODS.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => (value as (...args: unknown[]) => Test).apply(target, args).agent(connections);
    },
  });
}
