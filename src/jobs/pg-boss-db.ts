import type PgBoss from 'pg-boss';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * pg-boss runs its SQL through TypeORM's own pool (no second pool per replica), and a job can be
 * sent inside a caller's transaction, so it exists exactly when the write that caused it commits.
 */
export interface PoolDb extends PgBoss.Db {
  /**
   * When the pool was closed under pg-boss (not the normal order: the queue stops first), rejects the
   * queries still waiting for a connection, which pg-pool would otherwise leave pending forever,
   * keeping a stopping worker alive.
   */
  abandonIfClosed(): void;
}

export function poolDb(dataSource: DataSource): PoolDb {
  // The driver's primary pool (`pg.Pool`): pg-boss wants pg's `{ rows }` results, and some of its
  // maintenance statements are several commands in one string, which pg accepts without parameters.
  const pool = (dataSource.driver as unknown as { master: Pool & { ending?: boolean } }).master;
  const pending = new Set<(error: Error) => void>();
  const closed = () => new Error('The database pool is closed');
  return {
    executeSql: (text, values) => {
      if (pool.ending) return Promise.reject(closed());
      return new Promise((resolve, reject) => {
        pending.add(reject);
        pool
          .query(text, values)
          .then(resolve, reject)
          .finally(() => pending.delete(reject));
      });
    },
    abandonIfClosed: () => {
      if (!pool.ending) return;
      for (const reject of pending) reject(closed());
      pending.clear();
    },
  };
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
