import { randomBytes } from 'node:crypto';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './database';

declare global {
  var __quireTestDatabase: TestDatabase | undefined;
}

export default async function globalSetup(): Promise<void> {
  // One encryption key for the run's database, whatever directory a server or the CLI runs from (a key
  // file under each one's DATA_DIR would not open what another wrote). Inherited by every test worker.
  process.env.ENCRYPTION_KEY ??= randomBytes(32).toString('base64');
  const database = await createTestDatabase();
  globalThis.__quireTestDatabase = database;
  process.env[TEST_DATABASE_URL] = database.url;
}
