import type { Pool, PoolClient, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * One PostgreSQL connection, inside one transaction that the harness rolls back after each test, handed to
 * every piece of code that asks the data source's pool for a connection: TypeORM's query runners (so
 * `dataSource.transaction`, the space unit of work and repositories), `queryPrepared`, and pg-boss (which
 * runs on the same pool, `jobs/pg-boss-db.ts`).
 *
 * Each borrower gets its own view of the connection, which turns its transaction control into savepoints:
 * `START TRANSACTION`/`BEGIN …` → `SAVEPOINT`, `COMMIT` → the deferred constraints checked (what a real
 * commit does) then `RELEASE SAVEPOINT`, `ROLLBACK` → `ROLLBACK TO SAVEPOINT`. A statement sent outside a
 * transaction runs in a savepoint of its own, so a failing one (a unique violation the service turns into
 * 409) leaves the test's transaction usable, as autocommit would. Everything goes through one queue, so a
 * savepoint's statements are never split by another borrower's. Statements sent together with their
 * COMMIT (`INSERT …; COMMIT`) run in the savepoint before it is released.
 *
 * A COPY (pg-copy-streams) goes straight to the connection, outside the queue: only inside a borrower's
 * transaction is it sure to land in that transaction's savepoint.
 *
 * What this cannot give: a second session. Work that needs one (LISTEN, `withAdvisoryLock`'s own client,
 * pg-boss workers) is outside the fast tier. `now()` is the test's transaction start for the whole test,
 * and isolation levels are ignored (savepoints have none).
 */
export class SharedConnection {
  private queue: Promise<unknown> = Promise.resolve();
  /** Open savepoints, oldest first: a borrower's transaction, or a lone statement's. */
  private readonly stack: string[] = [];
  private counter = 0;

  constructor(readonly client: PoolClient) {}

  /** Runs `work` once every unit queued before it has finished; units never interleave. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  savepointName(): string {
    return `fast_${++this.counter}`;
  }

  open(name: string): Promise<QueryResult> {
    this.stack.push(name);
    return this.client.query(`SAVEPOINT ${name}`);
  }

  /** Releases `name` when it is the newest savepoint; an older one (borrowers overlapping in time) is left to merge into the test's transaction. */
  async release(name: string): Promise<void> {
    const index = this.stack.lastIndexOf(name);
    if (index === -1) return;
    const newest = index === this.stack.length - 1;
    this.stack.splice(index, 1);
    if (newest) await this.client.query(`RELEASE SAVEPOINT ${name}`);
  }

  /** Undoes everything since `name` (later borrowers' savepoints included, as PostgreSQL does). */
  async rollback(name: string): Promise<void> {
    const index = this.stack.lastIndexOf(name);
    if (index === -1) return;
    this.stack.splice(index);
    await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await this.client.query(`RELEASE SAVEPOINT ${name}`);
  }

  /**
   * What a real COMMIT checks at its end: constraints declared `DEFERRABLE INITIALLY DEFERRED`, constraint
   * triggers. Every deferrable constraint of the schema is initially deferred, so `ALL DEFERRED` puts them back.
   */
  async checkDeferred(): Promise<void> {
    await this.client.query('SET CONSTRAINTS ALL IMMEDIATE');
    await this.client.query('SET CONSTRAINTS ALL DEFERRED');
  }

  /** A new borrower's view of the connection. */
  borrow(): PoolClient {
    const query = borrowerQuery(this);
    const release = () => undefined;
    return new Proxy(this.client, { get: (target, key) => (key === 'query' ? query : key === 'release' ? release : Reflect.get(target, key)) });
  }
}

const TRANSACTION_START = /^\s*(START\s+TRANSACTION|BEGIN)\b/i;
const COMMIT = /^\s*(COMMIT|END)\s*;?\s*$/i;
const ROLLBACK = /^\s*(ROLLBACK|ABORT)\s*;?\s*$/i;
const SET_TRANSACTION = /^\s*SET\s+TRANSACTION\b/i;
const TRAILING_COMMIT = /^([\s\S]*);\s*COMMIT\s*;?\s*$/i;

const empty = (command: string): QueryResult => ({ command, rowCount: null, oid: 0, fields: [], rows: [] });

/** `client.query` for one borrower: its transaction is a savepoint on the shared connection. */
function borrowerQuery(shared: SharedConnection) {
  let transaction: string | undefined;
  const statement = async (text: string, values?: unknown, config?: object): Promise<QueryResult> => {
    // Statements sent in one message with their COMMIT (the audit recorder's `INSERT …; COMMIT`): run in
    // the borrower's savepoint, then committed as a lone COMMIT would be.
    const withCommit = transaction ? TRAILING_COMMIT.exec(text) : null;
    if (withCommit) {
      await shared.serial(() => shared.client.query(withCommit[1]));
      return statement('COMMIT');
    }
    const query = config ?? { text, values };
    if (TRANSACTION_START.test(text)) {
      if (transaction) throw new Error(`a borrower of the shared connection began a transaction twice: ${text}`);
      transaction = shared.savepointName();
      return shared.serial(async () => (await shared.open(transaction as string), empty('BEGIN')));
    }
    if (SET_TRANSACTION.test(text)) return empty('SET');
    if (COMMIT.test(text) || ROLLBACK.test(text)) {
      const name = transaction;
      transaction = undefined;
      if (!name) return empty(COMMIT.test(text) ? 'COMMIT' : 'ROLLBACK');
      if (ROLLBACK.test(text)) return shared.serial(async () => (await shared.rollback(name), empty('ROLLBACK')));
      return shared.serial(async () => {
        try {
          await shared.checkDeferred();
        } catch (error) {
          await shared.rollback(name);
          throw error;
        }
        await shared.release(name);
        return empty('COMMIT');
      });
    }
    if (transaction) return shared.serial(() => shared.client.query(query as never));
    // Autocommit: the statement alone in a savepoint, so its failure does not abort the test's transaction.
    return shared.serial(async () => {
      const name = shared.savepointName();
      await shared.open(name);
      try {
        const result = await shared.client.query(query as never);
        await shared.release(name);
        return result;
      } catch (error) {
        await shared.rollback(name);
        throw error;
      }
    });
  };
  return (first: unknown, second?: unknown, third?: unknown): unknown => {
    // A submittable (pg-copy-streams' COPY): straight to the connection, in whatever transaction is open.
    if (first && typeof first === 'object' && typeof (first as { submit?: unknown }).submit === 'function') return shared.client.query(first as never);
    const callback = [second, third].find((value): value is (error: Error | null, result?: QueryResult) => void => typeof value === 'function');
    const values = typeof second === 'function' ? undefined : second;
    const promise =
      typeof first === 'string'
        ? statement(first, values)
        : statement((first as { text: string }).text, (first as { values?: unknown }).values ?? values, first as object);
    if (!callback) return promise;
    promise.then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
    return undefined;
  };
}

/** Routes `dataSource`'s pool to `shared` until the returned function is called. */
export function routePool(dataSource: DataSource, shared: SharedConnection): () => void {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const own = { connect: pool.connect, query: pool.query };
  const borrowed = pool as unknown as { connect: unknown; query: unknown };
  borrowed.connect = (callback?: (error: Error | undefined, client: PoolClient, done: () => void) => void) => {
    const client = shared.borrow();
    if (!callback) return Promise.resolve(client);
    callback(undefined, client, () => undefined);
    return undefined;
  };
  borrowed.query = (text: unknown, values?: unknown) => (shared.borrow().query as (a: unknown, b?: unknown) => Promise<QueryResult>)(text, values);
  return () => {
    borrowed.connect = own.connect;
    borrowed.query = own.query;
  };
}
