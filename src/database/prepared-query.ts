import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Runs a fixed read as a named prepared statement, so PostgreSQL parses and plans it once per
 * connection instead of on every request. For the few queries behind every request (the token
 * lookup, the space access check), outside transactions; everything else goes through TypeORM.
 */
export async function queryPrepared<R>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<R[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const { rows } = await pool.query({ name, text, values });
  return rows as R[];
}
