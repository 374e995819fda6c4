import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type Pool } from 'pg';
import { DataSource, EntityManager, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { DATABASE_DIRECT_URL } from '../../database/direct-url';
import { SiteWrites } from '../sites/site-writes';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { SnapshotEpoch } from './snapshot-epoch.port';

/** The channel the generation trigger notifies on commit (migration 1800000280000). */
export const PUBLISHED_CHANNEL = 'published_generation';
/** A transaction that wrote something resolution reads, marked by the listeners below (`QueryRunner.data`). */
const MARK = 'quire.publishedChanged';
const RECONNECT_MS = 1000;

/**
 * When the site snapshots URL resolution keeps in memory stop being true, without a query per request.
 * `epoch()` moves (and every snapshot read before is dropped) when:
 * - this process commits a write the renderer's freshness also listens to (a write to a site through
 *   `SiteWrites`, a space's active revision), right after its COMMIT, before the writer answers;
 * - PostgreSQL notifies `published_generation`: the generation trigger of every watched table
 *   notifies as the transaction commits, whichever process or replica wrote (moments after COMMIT);
 * - the listening connection is lost or comes back.
 * While no listening connection is up, `epoch()` is null and resolution reads the generation
 * sequence per request as before: a replica that cannot listen is slower, never stale.
 */
@Injectable()
export class SnapshotFreshness extends SnapshotEpoch implements OnModuleInit, OnApplicationShutdown, EntitySubscriberInterface {
  private readonly logger = new Logger(SnapshotFreshness.name);
  private current = 0;
  private listening = false;
  private client?: Client;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly siteWrites: SiteWrites,
    private readonly spaceWrites: SpaceUnitOfWork,
    // LISTEN is session-level: past a transaction-mode pooler, on the direct server.
    @Optional() @Inject(DATABASE_DIRECT_URL) private readonly directUrl?: string,
  ) {
    super();
  }

  /** The epoch snapshots are valid in, or null when changes cannot be heard (then ask the database). */
  epoch(): number | null {
    return this.listening ? this.current : null;
  }

  async onModuleInit(): Promise<void> {
    this.dataSource.subscribers.push(this);
    const mark = async (_change: unknown, em: EntityManager) => {
      if (em.queryRunner) em.queryRunner.data = { ...em.queryRunner.data, [MARK]: true };
    };
    this.siteWrites.onSiteWritten(mark);
    this.spaceWrites.onRevisionActivated(mark);
    await this.listen();
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A savepoint's release is broadcast as a commit too: only the outermost COMMIT counts.
    if (event.queryRunner.isTransactionActive) return;
    if (event.queryRunner.data?.[MARK]) {
      this.current++;
      event.queryRunner.data = { ...event.queryRunner.data, [MARK]: false };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const { options } = (this.dataSource.driver as unknown as { master: Pool & { options: { password?: unknown } } }).master;
    // The pool keeps `password` non-enumerable: named, or the spread would drop it.
    const client = this.directUrl
      ? new Client({ connectionString: this.directUrl, application_name: 'quire-published-listener' })
      : new Client({ ...options, password: options.password, application_name: 'quire-published-listener' } as object);
    this.client = client;
    const lost = (error?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listening = false;
      this.current++;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (error) this.logger.warn({ msg: 'published snapshot listener lost; resolution reads the generation per request meanwhile', err: error });
      this.retry = setTimeout(() => void this.listen(), RECONNECT_MS);
      this.retry.unref();
    };
    client.on('notification', () => this.current++);
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${PUBLISHED_CHANNEL}`);
      if (this.client !== client || this.closed) return;
      // Whatever was read before this connection heard anything is suspect.
      this.current++;
      this.listening = true;
    } catch (error) {
      lost(error);
    }
  }
}
