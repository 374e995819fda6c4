import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Advisory-lock keys (cluster-wide, one 64-bit space): each names work that replicas starting
 * at the same moment must do one at a time. Taken elsewhere in the same space: 0x717569_02 (the
 * environment bootstrap's transaction lock, `admin.service.ts`), 0x717569_20 (content tree),
 * 0x717569_21 (retention purge).
 */
export const ADVISORY_LOCKS = {
  /** Applying migrations (`runMigrations`). */
  migrations: 0x717569_01,
  /**
   * The job queues, their options and cron schedules: pg-boss's `createQueue` deadlocks against
   * itself (40P01) when two replicas create the same queues at once.
   */
  jobQueues: 0x717569_03,
} as const;

/**
 * Runs `work` while this process holds the advisory lock `key`: a transaction-level lock, taken in a
 * transaction kept open on a connection of its own (outside the pool, so `work` has every pooled
 * connection, even in a pool of one) and released when that transaction ends. Transaction-level, so it
 * holds behind a transaction-mode PgBouncer too (an open transaction keeps its server connection; a
 * session lock would stay on whichever server connection took it). Another process asking for the same
 * key waits until `work` ends; a process that dies loses its lock with its connection, so a crash never
 * leaves it held.
 */
export async function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  const { url } = dataSource.options as { url?: string };
  const client = new Client({ connectionString: url, application_name: 'quire' });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [key]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } finally {
    // On a throw the transaction is still open: ending the connection rolls it back and frees the lock.
    await client.end().catch(() => undefined);
  }
}
