import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { resolveDatabase, ResolvedDatabase } from '../../src/database/database-url';

/** Where the e2e run's fresh database lives; set by the global setup for every test file. */
export const TEST_DATABASE_URL = 'QUIRE_TEST_DATABASE_URL';
/**
 * Set by `npm run test:pgbouncer` (scripts/test-pgbouncer.js): DATABASE_URL then goes through PgBouncer in
 * transaction mode and this is the server behind it, where databases are created and migrated, and where
 * every app and CLI run of the tests gets its DATABASE_DIRECT_URL (`directEnv`).
 */
export const TEST_DIRECT_SERVER = 'QUIRE_TEST_DIRECT_SERVER';

/** `DATABASE_DIRECT_URL` for a process using `url`, when the run goes through PgBouncer: the same database on the direct server. */
export function directEnv(url: string | undefined): { DATABASE_DIRECT_URL?: string } {
  const server = process.env[TEST_DIRECT_SERVER];
  const pooler = process.env.DATABASE_URL;
  // Only a URL through the run's PgBouncer (a test's own cluster is direct).
  if (!server || !url || !pooler || new URL(url).host !== new URL(pooler).host) return {};
  const direct = new URL(server);
  direct.pathname = new URL(url).pathname;
  return { DATABASE_DIRECT_URL: direct.toString() };
}

export interface TestDatabase {
  url: string;
  /** Copies of the migrated database (`TEMPLATE`), one per further jest worker. */
  copies: string[];
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test run, on the server DATABASE_URL points at, or on the
 * embedded PostgreSQL when it is unset (started here if no server has it running).
 */
export async function createTestDatabase(copies = 0): Promise<TestDatabase> {
  const server: ResolvedDatabase = await resolveDatabase(loadConfig(), (line) => process.stderr.write(`${line}\n`));
  const name = `quire_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  // Behind PgBouncer, databases are made and migrated on the server itself (as the CLI migrates: DATABASE_DIRECT_URL).
  const direct = process.env[TEST_DIRECT_SERVER] ?? server.url;
  const admin = new Client({ connectionString: direct });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const url = withDatabase(server.url, name);
  const dataSource = await createDataSource(directEnv(url).DATABASE_DIRECT_URL ?? url, 2).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  // Each further worker gets a copy of the migrated database: no file sees another's rows or counters.
  const names = Array.from({ length: copies }, (_, i) => `${name}_w${i + 2}`);
  if (names.length > 0) {
    const copier = new Client({ connectionString: direct });
    await copier.connect();
    for (const copy of names) await copier.query(`CREATE DATABASE ${copy} TEMPLATE ${name}`);
    await copier.end();
    // TypeORM keeps generated columns' expressions in `typeorm_metadata` under the database's name: a copy
    // must name itself there, or `migration:generate` sees those columns as changed.
    for (const copy of names) {
      const own = new Client({ connectionString: withDatabase(direct, copy) });
      await own.connect();
      await own.query(`UPDATE typeorm_metadata SET database = current_database() WHERE database = $1`, [name]);
      await own.end();
    }
  }

  return {
    url,
    copies: names.map((copy) => withDatabase(server.url, copy)),
    drop: async () => {
      const client = new Client({ connectionString: direct });
      await client.connect();
      for (const database of [name, ...names]) await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await client.end();
      await server.release();
    },
  };
}

/** `server` (a URL of the PostgreSQL server) with its database replaced by `database`. */
function withDatabase(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}
