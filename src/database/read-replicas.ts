import { Logger } from '@nestjs/common';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Observable } from 'rxjs';
import type { DataSource, QueryRunner } from 'typeorm';
import { ScopedStorage } from '../common/async/scoped-storage';
import { QUIRE_SESSION_OPTIONS } from './data-source';
import type { SharedWritePositions } from './write-positions';

/**
 * Reads on streaming replicas (DATABASE_READ_URLS), behind one seam: TypeORM's "slave" query runners.
 *
 * - A read that tolerates lag runs inside a **read scope** (`@ReadFromReplica()` on the route, see
 *   `read-from-replica.ts`). Only there do the SELECT query builders (`find`, `createQueryBuilder`),
 *   raw `dataSource.query` without a transaction and `queryPrepared` ask for a replica; everywhere
 *   else, and inside every transaction (its query runner is the primary's), TypeORM's default is
 *   the primary. Writes never reach a replica: insert/update/delete builders and `save` always take
 *   the primary, and a raw write in a read scope that a replica refuses (SQLSTATE 25006, read-only)
 *   runs again on the primary.
 * - **Read-your-writes**: after a request that may write, the primary's WAL position
 *   (`pg_current_wal_insert_lsn()`, past the commit record even with asynchronous commit) is kept for `RYW_WINDOW_MS` for the caller's token and for the space
 *   the route names (`:spaceId`); a read by that token, or of that space, uses only a replica whose
 *   `pg_last_wal_replay_lsn()` has reached it (checked at most every `LSN_CACHE_MS` per replica),
 *   else the primary. The space's key keeps a reader from meeting, on a replica, a space whose
 *   access row (read on the primary by the guards) names a revision the replica has not replayed.
 *   Kept in this process's memory and, with REDIS_URL, on Redis (`write-positions.ts`) so that every
 *   Quire replica waits for it; Redis not answering a read's check sends that read to the primary.
 *   A job sent by a writing request carries the request's keys, and its writes are recorded for
 *   them once it has run (`JobsService`).
 * - A replica that fails (connection refused, terminated, a failed position check) is taken out for
 *   `RETRY_MS` (a circuit breaker); reads fall back to the primary. `quire_db_replica_up` and the
 *   `readReplicas` detail of `/health/ready` show it.
 */
export const RYW_WINDOW_MS = 10_000;
export const LSN_CACHE_MS = 100;
export const RETRY_MS = 5_000;

interface ReadScope {
  /** Whose recent writes this read must see: the caller's token (its SHA-256), the space it reads. */
  keys: string[];
  /** The replica this request reads from, chosen at its first read (null: the primary). */
  chosen?: Promise<Replica | null>;
}

// Scoped, so the process-wide async hook is on only while such a request runs (decision 0068).
const readScope = new ScopedStorage<ReadScope>();
const writeScope = new ScopedStorage<string[]>();

/** Subscribes `work` in a read scope: reads that tolerate lag may go to a replica that has replayed the writes recorded for `keys`. */
export function inReadScope<T>(keys: string[], work: () => Observable<T>): Observable<T> {
  return readScope.observe({ keys }, work);
}

/** Subscribes `work` (a request that may write) so that the jobs it sends know whose writes they make. */
export function inWriteScope<T>(keys: string[], work: () => Observable<T>): Observable<T> {
  return writeScope.observe(keys, work);
}

/** The read-your-writes keys of the writing request running now (none outside one). */
export function currentWriteKeys(): readonly string[] {
  return writeScope.getStore() ?? [];
}

interface Replica {
  index: number;
  /** host:port/database, never the password. */
  label: string;
  pool: Pool;
  downUntil: number;
  lastError?: string;
  lsn?: bigint | null;
  lsnAt: number;
  lsnCheck?: Promise<bigint | null>;
}

export interface ReplicaStatus {
  replica: string;
  state: 'up' | 'down';
  /** Bytes of WAL replayed, as last seen (an LSN); null before the first check or while down. */
  replayLsn: string | null;
  error?: string;
}

type Connection = [PoolClient, (error?: Error) => void];
interface ReplicatedDriver {
  master: Pool;
  isReplicated: boolean;
  postgres: { Pool: new (config: PoolConfig) => Pool };
  obtainMasterConnection(): Promise<Connection>;
  obtainSlaveConnection(): Promise<Connection>;
}

const installed = new WeakMap<DataSource, ReadReplicas>();

/** The replicas installed on a data source, when DATABASE_READ_URLS names any. */
export function readReplicasOf(dataSource: DataSource): ReadReplicas | undefined {
  return installed.get(dataSource);
}

/** The connection a read in the current scope uses: a replica's when one qualifies, else the primary's. */
export async function obtainReadConnection(dataSource: DataSource): Promise<Connection> {
  const replicas = installed.get(dataSource);
  const driver = dataSource.driver as unknown as ReplicatedDriver;
  if (!replicas || !readScope.getStore()) return driver.obtainMasterConnection();
  return replicas.obtainRead();
}

export class ReadReplicas {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly writes = new Map<string, { lsn: bigint; until: number }>();
  private next = 0;
  private driver!: ReplicatedDriver;
  private reads?: Counter<'target'>;

  constructor(
    private readonly urls: string[],
    private readonly poolSize: number,
    private readonly timing = { rywWindowMs: RYW_WINDOW_MS, lsnCacheMs: LSN_CACHE_MS, retryMs: RETRY_MS },
    private readonly shared?: SharedWritePositions,
  ) {
    this.replicas = urls.map((url, index) => ({ index, label: labelOf(url), pool: undefined as unknown as Pool, downUntil: 0, lsnAt: 0 }));
  }

  /** Routes the data source's "slave" query runners here, and raw reads in a read scope to them. */
  install(dataSource: DataSource): void {
    this.driver = dataSource.driver as unknown as ReplicatedDriver;
    for (const replica of this.replicas) {
      // pg connects lazily: a replica down at start-up is only taken out, never a failed start.
      replica.pool = new this.driver.postgres.Pool({
        connectionString: this.urls[replica.index],
        max: this.poolSize,
        connectionTimeoutMillis: 2000,
        application_name: 'quire-read',
        options: QUIRE_SESSION_OPTIONS,
      });
      replica.pool.on('error', (error) => this.trip(replica, error));
    }
    this.driver.isReplicated = true;
    this.driver.obtainSlaveConnection = () => this.obtainRead();
    // SELECT builders outside a transaction take a "slave" runner only inside a read scope.
    const reads = dataSource as unknown as { defaultReplicationModeForReads(): 'master' | 'slave' };
    reads.defaultReplicationModeForReads = () => (readScope.getStore() ? 'slave' : 'master');
    const query = dataSource.query.bind(dataSource);
    (dataSource as { query: typeof query }).query = async (text: string, parameters?: unknown[], runner?: QueryRunner) => {
      if (runner || !readScope.getStore()) return query(text, parameters, runner);
      const slave = dataSource.createQueryRunner('slave');
      try {
        return await slave.query(text, parameters);
      } catch (error) {
        if ((error as { code?: string }).code !== READ_ONLY) throw error;
        this.logger.warn({ msg: 'a write in a read scope was refused by a replica; ran on the primary', sql: text.slice(0, 80) });
        return query(text, parameters);
      } finally {
        await slave.release();
      }
    };
    installed.set(dataSource, this);
    void this.shared?.connect();
  }

  /** `quire_db_replica_up{replica}` and `quire_db_replica_reads_total{target}` on the app's registry. */
  registerMetrics(registry: Registry): void {
    const replicas = this.replicas;
    const now = () => Date.now();
    new Gauge({
      name: 'quire_db_replica_up',
      help: 'Read replica: 1 when it serves reads, 0 while taken out after a failure',
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        for (const replica of replicas) this.set({ replica: replica.label }, replica.downUntil > now() ? 0 : 1);
      },
    });
    this.reads = new Counter({
      name: 'quire_db_replica_reads_total',
      help: 'Reads in a read scope by where they ran: replica, or primary (no replica up, or none has replayed the caller’s last write)',
      labelNames: ['target'],
      registers: [registry],
    });
    if (this.shared)
      this.shared.errors = new Counter({
        name: 'quire_db_write_positions_errors_total',
        help: 'Read-your-writes positions Redis did not answer in time (a read went to the primary, or a write was kept in this process only)',
        registers: [registry],
      });
  }

  status(): ReplicaStatus[] {
    const now = Date.now();
    return this.replicas.map((replica) => {
      const down = replica.downUntil > now;
      return {
        replica: replica.label,
        state: down ? 'down' : 'up',
        replayLsn: !down && replica.lsn != null ? formatLsn(replica.lsn) : null,
        ...(down && replica.lastError ? { error: replica.lastError } : {}),
      };
    });
  }

  /**
   * Records the primary's WAL position for the caller who may just have written (after the commit).
   * When the primary cannot say, the caller reads from the primary for the whole window instead.
   */
  async recordWrite(keys: string[]): Promise<void> {
    let lsn = PRIMARY_ONLY;
    try {
      const { rows } = await this.driver.master.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      lsn = parseLsn(rows[0].lsn);
    } catch (error) {
      this.logger.warn({ msg: 'could not read the primary WAL position after a write; the caller reads the primary meanwhile', error: messageOf(error) });
    }
    const now = Date.now();
    for (const key of keys) {
      this.writes.delete(key); // re-inserted last: the map stays ordered by expiry
      this.writes.set(key, { lsn, until: now + this.timing.rywWindowMs });
    }
    for (const [stale, entry] of this.writes) {
      if (entry.until > now) break;
      this.writes.delete(stale);
    }
    // Before the answer leaves: the caller's next request may reach another Quire replica.
    await this.shared?.record(keys, lsn, this.timing.rywWindowMs);
  }

  /** A connection for a read in the current scope (the primary's outside one). */
  async obtainRead(): Promise<Connection> {
    const scope = readScope.getStore();
    if (scope) {
      scope.chosen ??= this.choose(scope.keys);
      const replica = await scope.chosen;
      if (replica) {
        try {
          const client = await replica.pool.connect();
          this.reads?.inc({ target: 'replica' });
          return [client, (error?: Error) => client.release(error)];
        } catch (error) {
          this.trip(replica, error);
          scope.chosen = Promise.resolve(null);
        }
      }
    }
    this.reads?.inc({ target: 'primary' });
    return this.driver.obtainMasterConnection();
  }

  async close(): Promise<void> {
    this.shared?.close();
    await Promise.all(this.replicas.map((replica) => replica.pool?.end().catch(() => undefined)));
  }

  /** A replica up and caught up with the caller's last write, starting from the next in turn; null: the primary. */
  private async choose(keys: string[]): Promise<Replica | null> {
    const now = Date.now();
    let needed: bigint | undefined;
    for (const key of keys) {
      const write = this.writes.get(key);
      if (write && write.until > now && (needed === undefined || write.lsn > needed)) needed = write.lsn;
    }
    if (this.shared && this.replicas.some((replica) => replica.downUntil <= now)) {
      const shared = await this.shared.needed(keys, PRIMARY_ONLY);
      if (shared !== undefined && (needed === undefined || shared > needed)) needed = shared;
    }
    if (needed === PRIMARY_ONLY) return null;
    const start = this.next++;
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(start + i) % this.replicas.length];
      if (replica.downUntil > now) continue;
      const lsn = await this.replayLsn(replica);
      if (lsn == null) continue;
      if (needed === undefined || lsn >= needed) return replica;
    }
    return null;
  }

  private replayLsn(replica: Replica): Promise<bigint | null> {
    if (Date.now() - replica.lsnAt < this.timing.lsnCacheMs && replica.lsn !== undefined) return Promise.resolve(replica.lsn);
    replica.lsnCheck ??= replica.pool
      .query<{ lsn: string | null }>({
        text: 'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn',
        query_timeout: 2000,
      } as never)
      .then(({ rows }) => {
        replica.lsn = rows[0].lsn === null ? null : parseLsn(rows[0].lsn);
        replica.lsnAt = Date.now();
        return replica.lsn;
      })
      .catch((error: unknown) => {
        this.trip(replica, error);
        return null;
      })
      .finally(() => (replica.lsnCheck = undefined));
    return replica.lsnCheck;
  }

  private trip(replica: Replica, error: unknown): void {
    const wasUp = replica.downUntil <= Date.now();
    replica.downUntil = Date.now() + this.timing.retryMs;
    replica.lsn = undefined;
    replica.lastError = messageOf(error);
    if (wasUp)
      this.logger.warn({
        msg: 'read replica taken out; reads go to the primary meanwhile',
        replica: replica.label,
        error: replica.lastError,
        retryMs: this.timing.retryMs,
      });
  }
}

/** Past any WAL position: no replica qualifies. */
const PRIMARY_ONLY = 1n << 64n;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** SQLSTATE read_only_sql_transaction: what a hot standby answers to a write. */
const READ_ONLY = '25006';

/** `16/B374D848` → a number that orders like the WAL. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

function labelOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'replica';
  }
}
