import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ADVISORY_LOCKS, withAdvisoryLock } from './advisory-lock';
import { SnakeNamingStrategy } from './snake-naming.strategy';

/**
 * Every entity file, found by name (`src/**` under swc-node and jest, `dist/src/**` when built). Inside
 * Nest each module registers its own entities (`TypeOrmModule.forFeature`, `autoLoadEntities`); a data
 * source outside Nest (CLI migrations, `migration:generate`, test setup) finds the same set this way,
 * so this layer imports no domain module.
 */
export const ENTITY_FILES = join(__dirname, '..', '**', '*.entity.{ts,js}');

/** What every Quire session sets at connection (the `options` startup parameter). */
export const QUIRE_SESSION_OPTIONS = '-c jit=off';

/** One definition of the connection, shared by the server, the CLI and the tests. Entities are added by the caller. */
export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    // Failed queries surface through the error filter (unexpected ones logged with the request id).
    logging: false,
    // jit=off (decision 28): the planner's estimates over the layered revision views pass the JIT
    // threshold and would compile queries that run in milliseconds. A pooler that ignores startup options
    // (PgBouncer's `ignore_startup_parameters = options`) needs it on the role instead.
    extra: { max: poolSize, connectionTimeoutMillis: 5000, application_name: 'quire', options: QUIRE_SESSION_OPTIONS },
  };
}

/** A data source outside Nest (CLI, migrations, test setup): the entities come from their files. */
export function createDataSource(url: string, poolSize?: number): DataSource {
  return new DataSource({ ...dataSourceOptions(url, poolSize), entities: [ENTITY_FILES] });
}

/** Applies pending migrations while holding a cluster-wide advisory lock (on a connection of its own); returns their names. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  return withAdvisoryLock(dataSource, ADVISORY_LOCKS.migrations, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  });
}

/**
 * Applies pending migrations on connections of their own to `url` (DATABASE_DIRECT_URL): TypeORM's
 * migration runner keeps its own session state, which a transaction-mode pooler would not.
 */
export async function runMigrationsAt(url: string): Promise<string[]> {
  const dataSource = await new DataSource(dataSourceOptions(url, 2)).initialize();
  try {
    return await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
