import { DataSource } from 'typeorm';

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
 * transaction kept open on a connection of its own from the pool (`work` uses others: the pool needs two
 * connections at least) and released when that transaction ends. Transaction-level, so it holds behind a
 * transaction-mode PgBouncer too (an open transaction keeps its server connection; a session lock would
 * stay on whichever server connection took it). Another process asking for the same key waits until
 * `work` ends; a process that dies loses its lock with its connection, so a crash never leaves it held.
 */
export async function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query('SELECT pg_advisory_xact_lock($1)', [key]);
    const result = await work();
    await runner.commitTransaction();
    return result;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
