import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { resolveDatabase, ResolvedDatabase } from '../../src/database/database-url';

/** Where the e2e run's fresh database lives; set by the global setup for every test file. */
export const TEST_DATABASE_URL = 'QUIRE_TEST_DATABASE_URL';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test run, on the server DATABASE_URL points at, or on the
 * embedded PostgreSQL when it is unset (started here if no server has it running).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server: ResolvedDatabase = await resolveDatabase(loadConfig(), (line) => process.stderr.write(`${line}\n`));
  const name = `quire_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const dataSource = await createDataSource(url.toString(), 2).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: server.url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      await server.release();
    },
  };
}
