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

/** The real application on the run's database, served in-process; `env` overrides configuration. */
export async function createTestApp(
  env: Record<string, string> = {},
  logDestination?: DestinationStream,
  rewriteDatabaseUrl: (url: string) => string = (url) => url,
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
  return {
    app,
    config,
    dataSource: app.get(DataSource),
    http: listeningAgent(app.getHttpServer() as Server),
    close: () => app.close(),
  };
}

/** The base URL of the app's server (`http://127.0.0.1:<port>`), listening on a free port if it was not yet. */
export function serverUrl(t: TestApp): string {
  const server = t.app.getHttpServer() as Server;
  if (!server.listening) listenUnreferenced(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Listens on a free port, the server and its kept-alive connections left out of what keeps the process running: a
 * file that does not close its app ends as it did when supertest closed the server after each request.
 */
function listenUnreferenced(server: Server): void {
  // The client lets a connection go after 1 s idle (KEEP_ALIVE_IDLE_MS), long before the server would: a server
  // closing an idle connection as the client sends on it again fails that request ("socket hang up").
  server.keepAliveTimeout = 60_000;
  server.listen(0);
  server.unref();
  server.on('connection', (socket) => socket.unref());
}

const KEEP_ALIVE_IDLE_MS = 1000;
const REQUEST_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']);

/**
 * Supertest's agent on a server that listens from its first request to the app's close, over kept-alive connections.
 * Given a server that is not listening, supertest listens before each request and closes after it, and superagent
 * opens a connection per request: a bind, a listen, a connect and two closes per request, thousands in a matrix file.
 * A server already listening is used as it is. It listens on a free port (no host: the bind is synchronous, so
 * supertest sees the address at once) on the first request, not before: a file that starts the server on a port of
 * its choosing (`t.app.listen(port)`) does so before its first request.
 */
function listeningAgent(server: Server): TestAgent {
  const agent = request(server);
  const connections = new Agent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS });
  server.once('close', () => connections.destroy());
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !REQUEST_METHODS.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!server.listening) listenUnreferenced(server);
        return (value as (...args: unknown[]) => Test).apply(target, args).agent(connections);
      };
    },
  });
}
