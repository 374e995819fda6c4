import 'reflect-metadata';
import type { Server } from 'node:http';
import { ConfigError } from './config/env.schema';
import { AppConfig, loadConfig } from './config/app-config';
import { createLogger } from './common/logging/logger';
import { createApp } from './app.factory';
import { EmbeddedDatabaseError, resolveDatabase } from './database/database-url';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const started = Date.now();
  const logger = createLogger(config.logLevel);
  const database = await resolveDatabase(config, (line) => logger.info(line)).catch((error: unknown) => {
    if (!(error instanceof EmbeddedDatabaseError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp(config, database.url, logger);
    await app.listen(config.port, config.host);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    await database.release().catch(() => undefined);
    process.exit(1);
  }
  logger.info({ port: config.port, embeddedDatabase: database.embedded, startupMs: Date.now() - started }, `Quire listening on ${config.publicUrl}`);

  // Graceful shutdown: stop accepting, let in-flight requests finish, close the pool, stop the embedded database.
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
