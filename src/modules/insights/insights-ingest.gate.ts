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
 * Ingest back-pressure: a replica stores at most INSIGHTS_INGEST_MAX_IN_FLIGHT batches at once, and takes
 * none while more than INSIGHTS_INGEST_MAX_POOL_WAITING callers wait for a database connection. A batch
 * beyond is refused at once (429, Retry-After) rather than queued without bound; a batch taken is
 * acknowledged only after its transaction commits, so a refused batch is the only one a client resends.
 */
@Injectable()
export class InsightsIngestGate {
  private inFlight = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Takes a slot, or throws 429 (the controller sets Retry-After). Give it back with `release`. */
  acquire(): void {
    const { maxInFlight, maxPoolWaiting } = this.config.insights;
    if (this.inFlight >= maxInFlight) throw tooBusy(`${this.inFlight} batches are being stored`);
    const waiting = ((this.dataSource.driver as unknown as { master?: PoolLike }).master?.waitingCount ?? 0) as number;
    if (waiting > maxPoolWaiting) throw tooBusy(`${waiting} requests wait for a database connection`);
    this.inFlight++;
  }

  release(): void {
    this.inFlight--;
  }

  /** Batches being stored right now. */
  get current(): number {
    return this.inFlight;
  }
}

const tooBusy = (why: string) =>
  new HttpException(`Insights ingestion is behind (${why}); retry after ${INGEST_RETRY_AFTER_SECONDS} second(s)`, HttpStatus.TOO_MANY_REQUESTS);
