import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { ConfigError } from './config/env.schema';
import { AppConfig, loadConfig } from './config/app-config';
import { createLogger } from './common/logging/logger';
import { loadDotEnv } from './config/dotenv';
import { EmbeddedDatabaseError, resolveDatabase } from './database/database-url';
import { checkDatabase, StartupError } from './database/preflight';

/**
 * Binds the port for a moment before anything starts, so a port already in use stops the process
 * at once with one line, before the embedded PostgreSQL starts. (listen() below still handles a race.)
 */
function checkPortFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new StartupError(portInUse(port, host)) : error));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

const portInUse = (port: number, host: string) => `Cannot start: port ${port} on ${host} is already in use. Stop the other process or set PORT.`;

/** Ends the process with one plain line on stderr: the mistakes an operator makes at start-up. */
function refuseToStart(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    loadDotEnv();
    config = loadConfig();
    await checkPortFree(config.port, config.host);
    if (config.databaseUrl) await checkDatabase(config.databaseUrl);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) refuseToStart(error.message);
    throw error;
  }

  const started = Date.now();
  const logger = createLogger(config.logLevel);
  const database = await resolveDatabase(config, (line) => logger.info(line)).catch((error: unknown) => {
    if (error instanceof EmbeddedDatabaseError) refuseToStart(error.message);
    throw error;
  });
  // The application (NestJS and every module: about 2 s of CPU) loads only once the settings, the port and the database
  // have passed the checks above: a mistake in them is answered at once (test/e2e/startup.e2e-spec.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createApp } = require('./app.factory') as typeof import('./app.factory');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ShutdownState } = require('./health/shutdown-state') as typeof import('./health/shutdown-state');
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp(config, database.url, logger, database.directUrl);
  } catch (error) {
    await database.release().catch(() => undefined);
    // A wrong encryption key (or a key file that cannot be read): one plain line, like other settings.
    if (error instanceof ConfigError) refuseToStart(error.message);
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    // Stop what this process started (the pool, the embedded PostgreSQL) before saying why.
    await app.close().catch(() => undefined);
    await database.release().catch(() => undefined);
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') refuseToStart(portInUse(config.port, config.host));
    if (code === 'EACCES') refuseToStart(`Cannot start: no permission to listen on port ${config.port}. Use a port above 1023 (PORT).`);
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  logger.info({ port: config.port, embeddedDatabase: database.embedded, startupMs: Date.now() - started }, `Quire listening on ${config.publicUrl}`);

  // Graceful shutdown: readiness 503 (still accepting for SHUTDOWN_DRAIN_DELAY_MS, so load balancers
  // stop sending first), then stop accepting, let in-flight requests finish, close the pool, stop the
  // embedded database.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    try {
      app.get(ShutdownState).begin();
      if (config.shutdownDrainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainDelayMs));
      await drain(app.getHttpServer() as Server);
      await app.close();
      await database.release();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/**
 * Stops accepting connections and waits for the requests in flight. Nest's own close() runs the
 * providers' destroy hooks before it closes the HTTP server, which would pull resources (outbound
 * agents, the pool) from under requests still running; draining first keeps them until the end.
 */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Keep-alive connections between requests would hold close() open: close them as they go idle.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}

void main();
