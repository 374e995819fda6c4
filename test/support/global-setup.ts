import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './database';

declare global {
  var __quireTestDatabase: TestDatabase | undefined;
}

export default async function globalSetup(): Promise<void> {
  const database = await createTestDatabase();
  globalThis.__quireTestDatabase = database;
  process.env[TEST_DATABASE_URL] = database.url;
}
