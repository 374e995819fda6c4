import { DataSource } from 'typeorm';

/**
 * Session advisory-lock keys (cluster-wide, one 64-bit space): each names work that replicas starting
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
 * Runs `work` while this process holds the session advisory lock `key`, on a connection of its own
 * taken from the pool (`work` uses others: the pool needs two connections at least). Another process
 * asking for the same key waits until `work` ends; a process that dies loses its lock with its
 * connection, so a crash never leaves it held.
 */
export async function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
    await runner.release();
  }
}
