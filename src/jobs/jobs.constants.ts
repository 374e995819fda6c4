/** PostgreSQL schema holding pg-boss's tables; created by the migration `JobQueue1800000050000`, never at run time. */
export const JOBS_SCHEMA = 'pgboss';
