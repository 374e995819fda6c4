import type PgBoss from 'pg-boss';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * pg-boss runs its SQL through TypeORM's own pool (no second pool per replica), and a job can be
 * sent inside a caller's transaction, so it exists exactly when the write that caused it commits.
 */
export function poolDb(dataSource: DataSource): PgBoss.Db {
  // The driver's primary pool (`pg.Pool`): pg-boss wants pg's `{ rows }` results, and some of its
  // maintenance statements are several commands in one string, which pg accepts without parameters.
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  return { executeSql: (text, values) => pool.query(text, values) };
}

/** The connection of a transaction started with `dataSource.transaction(em => …)`. */
export function transactionDb(manager: EntityManager): PgBoss.Db {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive) throw new Error('Sending a job with a manager needs the manager of an open transaction');
  return {
    executeSql: async (text, values) => {
      const result = await runner.query(text, values, true);
      return { rows: result.records };
    },
  };
}
