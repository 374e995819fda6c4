import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../../../src/config/app-config';
import { ADVISORY_LOCKS } from '../../../src/database/advisory-lock';
import { createDataSource, runMigrations } from '../../../src/database/data-source';
import { resolveDatabase } from '../../../src/database/database-url';

/** Where the fast tier's migrated database lives; set here for every fast worker. */
export const FAST_DATABASE_URL = 'QUIRE_FAST_DATABASE_URL';

declare global {
  var __quireFastRelease: (() => Promise<void>) | undefined;
}

/**
 * One migrated database for the fast tier, reused from run to run: every fast test rolls back, so it stays
 * empty, and its name carries a hash of `migrations/`, so a changed migration gets a fresh one. Creating
 * it takes the migrations' advisory lock, so two runs starting together make it once.
 */
export default async function globalSetup(): Promise<void> {
  process.env.ENCRYPTION_KEY ??= randomBytes(32).toString('base64');
  const server = await resolveDatabase(loadConfig(), (line) => process.stderr.write(`${line}\n`));
  const name = `quire_fast_${migrationsHash()}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query('BEGIN');
    await admin.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.migrations]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      // CREATE DATABASE cannot run in a transaction: a second session, while this one holds the lock.
      const creator = new Client({ connectionString: server.url });
      await creator.connect();
      await creator.query(`CREATE DATABASE ${name}_new`);
      await creator.end();
      const dataSource = await createDataSource(withDatabase(server.url, `${name}_new`), 2).initialize();
      await dataSource.runMigrations({ transaction: 'each' });
      await dataSource.query(`UPDATE typeorm_metadata SET database = $1 WHERE database = $2`, [name, `${name}_new`]);
      await dataSource.destroy();
      // Renamed once complete: a run stopped half-way leaves no database that looks ready.
      const renamer = new Client({ connectionString: server.url });
      await renamer.connect();
      await renamer.query(`ALTER DATABASE ${name}_new RENAME TO ${name}`);
      await renamer.end();
    }
    await admin.query('COMMIT');
  } finally {
    await admin.end();
  }
  // Up to date even when reused (a no-op unless a migration was added without changing the hash's files).
  const dataSource = await createDataSource(withDatabase(server.url, name), 2).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();
  process.env[FAST_DATABASE_URL] = withDatabase(server.url, name);
  globalThis.__quireFastRelease = () => server.release();
}

/** A hash of every file under `migrations/`: names and contents. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  const directory = join(__dirname, '..', '..', '..', 'migrations');
  for (const file of readdirSync(directory).sort()) hash.update(file).update(readFileSync(join(directory, file)));
  return hash.digest('hex').slice(0, 12);
}

function withDatabase(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}
