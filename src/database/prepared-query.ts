import { Query, type PoolClient } from 'pg';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
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
    const rows = await send<R>(client, dataSource, name, text, values);
    release();
    return rows;
  } catch (error) {
    release(brokenBy(error));
    throw error;
  }
}

/**
 * As `queryPrepared`, with the statement's generic plan from its first run: in a transaction of its own that sets
 * `plan_cache_mode = force_generic_plan` for itself. For a statement over several partitioned tables whose bounds are
 * parameters: PostgreSQL would otherwise plan it anew on every run (a custom plan, every partition planned, then
 * pruned) because the generic plan's estimate counts every partition; the generic plan prunes them as it starts.
 * Two more round trips (the transaction's begin and end), each far cheaper than planning a year of partitions.
 */
export async function queryPreparedGeneric<R>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<R[]> {
  // Unnamed (DATABASE_PREPARED_STATEMENTS=false), a statement has no cached plan to choose.
  if (plain.has(dataSource)) return queryPrepared(dataSource, name, text, values);
  const [client, release] = await obtainReadConnection(dataSource);
  let rows: R[];
  let failure: unknown;
  try {
    await client.query('BEGIN READ ONLY; SET LOCAL plan_cache_mode = force_generic_plan');
    rows = await send<R>(client, dataSource, name, text, values).catch((error: unknown) => {
      failure = error;
      return [];
    });
    await client.query(failure ? 'ROLLBACK' : 'COMMIT');
  } catch (error) {
    // The transaction could not begin or end: the connection goes back marked, and the pool drops it.
    release(error as Error);
    throw failure ?? error;
  }
  release();
  if (failure) throw failure;
  return rows;
}

/**
 * `text` on `client`: named, or plain with DATABASE_PREPARED_STATEMENTS=false. Sent as a pg `Query` built from the
 * text: given a config object instead, pg copies it through its property descriptors on every call
 * (`cloneQueryConfig`), which a profile of the token lookup showed at about 10 µs a request.
 */
function send<R>(client: PoolClient, dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<R[]> {
  return new Promise<R[]>((resolve, reject) => {
    const query = new Query(text, values, (error, result) => {
      if (!error) return resolve(result.rows as R[]);
      // As pg's own promise does: a stack that leads back here rather than to the socket's read.
      Error.captureStackTrace(error);
      reject(error);
    });
    // pg reads the name when it sends the query (its types leave the field out).
    if (!plain.has(dataSource)) (query as Query & { name?: string }).name = name;
    client.query(query);
  });
}

/**
 * The error to give the pool with a connection after a failed statement: a broken connection goes back marked, so
 * the pool drops it; a statement error (it has a SQLSTATE) leaves it usable.
 */
function brokenBy(error: unknown): Error | undefined {
  return (error as { code?: string }).code ? undefined : (error as Error);
}

/** One read connection kept for a sequence of reads (a stream's batches): see `holdReadConnection`. */
export interface HeldReadConnection {
  /** A named prepared statement on the held connection (plain with DATABASE_PREPARED_STATEMENTS=false). */
  query<R>(name: string, text: string, values: unknown[]): Promise<R[]>;
  /** Gives the connection back (once; later calls do nothing). */
  release(): void;
}

/**
 * A read connection (a replica's in a read scope, as `queryPrepared` picks it) held until `release`: the reads
 * of one stream then meet one server, and a stream never waits on the pool for its next batch. A statement
 * that fails on a broken connection marks it, so the pool drops it on release.
 */
export async function holdReadConnection(dataSource: DataSource): Promise<HeldReadConnection> {
  const [client, giveBack] = await obtainReadConnection(dataSource);
  let broken: Error | undefined;
  let released = false;
  // One statement at a time on the client (a stream's next batch and the paths its bodies link to may be asked for
  // together): pg queues them itself, but that is deprecated and goes in pg 9.
  let previous: Promise<unknown> = Promise.resolve();
  return {
    query<R>(name: string, text: string, values: unknown[]): Promise<R[]> {
      const result = previous.then(() =>
        send<R>(client, dataSource, name, text, values).catch((error: unknown) => {
          broken ??= brokenBy(error);
          throw error;
        }),
      );
      previous = result.catch(() => undefined);
      return result;
    },
    release() {
      if (released) return;
      released = true;
      giveBack(broken);
    },
  };
}

/**
 * As `queryPrepared`, inside `manager`'s transaction: the named statement runs on that transaction's own
 * connection, so a statement every write sends under its lock (the space's row lock and access re-check) is
 * parsed and planned once per connection instead of on every write. A failure is TypeORM's `QueryFailedError`,
 * as `manager.query` would throw (the error envelope maps deadlocks and serialization failures from it). Plain
 * (unnamed) through `manager.query` with DATABASE_PREPARED_STATEMENTS=false, or without a transaction's runner.
 */
export async function queryPreparedIn<R>(manager: EntityManager, name: string, text: string, values: unknown[]): Promise<R[]> {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive || plain.has(manager.connection)) return manager.query(text, values);
  const client = (await runner.connect()) as PoolClient;
  try {
    return await send<R>(client, manager.connection, name, text, values);
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}
