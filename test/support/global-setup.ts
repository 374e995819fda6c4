import { randomBytes } from 'node:crypto';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './database';

declare global {
  var __quireTestDatabase: TestDatabase | undefined;
}

/** Where worker `n` (JEST_WORKER_ID, from 2) finds its own database; worker 1 uses TEST_DATABASE_URL. */
export const workerDatabaseVariable = (worker: number) => `${TEST_DATABASE_URL}_W${worker}`;

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  // One encryption key for the run's database, whatever directory a server or the CLI runs from (a key
  // file under each one's DATA_DIR would not open what another wrote). Inherited by every test worker.
  process.env.ENCRYPTION_KEY ??= randomBytes(32).toString('base64');
  // A database per jest worker: files running side by side never share rows, counters or queues.
  const database = await createTestDatabase(Math.max(0, (globalConfig.maxWorkers ?? 1) - 1));
  globalThis.__quireTestDatabase = database;
  process.env[TEST_DATABASE_URL] = database.url;
  database.copies.forEach((url, i) => (process.env[workerDatabaseVariable(i + 2)] = url));
}
