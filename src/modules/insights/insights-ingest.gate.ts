import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';

/** Seconds a refused ingest batch is asked to wait (`Retry-After`). */
export const INGEST_RETRY_AFTER_SECONDS = 1;

/** What the pg pool under TypeORM's Postgres driver exposes of its queue. */
interface PoolLike {
  waitingCount?: number;
}

/**
 * Ingest back-pressure. A replica refuses a batch at once (429, Retry-After) rather than queueing it without
 * bound when ingestion is behind, which is one of:
 * - INSIGHTS_INGEST_MAX_IN_FLIGHT batches are being stored already;
 * - the oldest batch being stored has been at it for more than INSIGHTS_INGEST_MAX_LAG_MS: the database
 *   does not keep up (a pool merely kept busy by steady clients answers each batch well within it);
 * - more than INSIGHTS_INGEST_MAX_POOL_WAITING callers of any route wait for a database connection: ingest
 *   leaves the pool to them.
 * A batch taken is acknowledged only after its statement (or transaction) commits, so a refused batch is the
 * only one a client resends.
 */
@Injectable()
export class InsightsIngestGate {
  /** Start time of each batch in flight, by ticket; tickets grow with time, so the first entry is the oldest. */
  private readonly started = new Map<number, number>();
  private nextTicket = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Takes a slot and returns its ticket, or throws 429 (the controller sets Retry-After). Give it back with `release`. */
  acquire(now = Date.now()): number {
    const { maxInFlight, maxLagMs, maxPoolWaiting } = this.config.insights;
    if (this.started.size >= maxInFlight) throw tooBusy(`${this.started.size} batches are being stored`);
    const oldest = this.started.values().next();
    if (!oldest.done && now - oldest.value > maxLagMs) throw tooBusy(`a batch has been being stored for ${now - oldest.value} ms`);
    const waiting = ((this.dataSource.driver as unknown as { master?: PoolLike }).master?.waitingCount ?? 0) as number;
    if (waiting > maxPoolWaiting) throw tooBusy(`${waiting} requests wait for a database connection`);
    const ticket = this.nextTicket++;
    this.started.set(ticket, now);
    return ticket;
  }

  release(ticket: number): void {
    this.started.delete(ticket);
  }

  /** Batches being stored right now. */
  get current(): number {
    return this.started.size;
  }
}

const tooBusy = (why: string) =>
  new HttpException(`Insights ingestion is behind (${why}); retry after ${INGEST_RETRY_AFTER_SECONDS} second(s)`, HttpStatus.TOO_MANY_REQUESTS);
