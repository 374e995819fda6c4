import type { DataSource } from 'typeorm';
import { obtainReadConnection } from './read-replicas';

const plain = new WeakSet<DataSource>();

/**
 * DATABASE_PREPARED_STATEMENTS=false: `queryPrepared` sends its statements unnamed (plain parameterized
 * queries), which any PgBouncer in transaction mode accepts. Set once, when the data source is built.
 */
export function usePreparedStatements(dataSource: DataSource, enabled: boolean): void {
  if (enabled) plain.delete(dataSource);
  else plain.add(dataSource);
}

/**
 * Runs a fixed read as a named prepared statement, so PostgreSQL parses and plans it once per
 * connection instead of on every request. For the few queries behind every request (the token
 * lookup, the space access check), outside transactions; everything else goes through TypeORM.
 * In a read scope (`@ReadFromReplica()`) it runs on a replica when one qualifies.
 */
export async function queryPrepared<R>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<R[]> {
  const [client, release] = await obtainReadConnection(dataSource);
  try {
    const { rows } = await client.query(plain.has(dataSource) ? { text, values } : { name, text, values });
    release();
    return rows as R[];
  } catch (error) {
    // A broken connection goes back marked, so the pool drops it; a statement error leaves it usable.
    release((error as { code?: string }).code ? undefined : (error as Error));
    throw error;
  }
}
