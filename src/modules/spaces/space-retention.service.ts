import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditRecorder } from '../../common/audit/audit-recorder';
import { AppConfig } from '../../config/app-config';
import { RevisionLifecycleService } from '../content/revision-lifecycle.service';
import { Clock } from './clock';
import { SpacesRepository } from './spaces.repository';

/** Advisory-lock key held by the replica running the purge; the others skip their turn. */
const PURGE_LOCK = 0x717569_21;

/** Spaces removed per transaction: short transactions, so a purge never holds many rows (or a restore) for long. */
export const PURGE_BATCH_SIZE = 50;

export interface PurgeResult {
  /** False when another replica held the purge lock, so this one did nothing. */
  ran: boolean;
  purged: number;
}

/** The retention period of deleted spaces (section 3: restorable for 7 days, then removed). */
@Injectable()
export class SpaceRetentionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly spaces: SpacesRepository,
    private readonly revisions: RevisionLifecycleService,
    private readonly audit: AuditRecorder,
  ) {}

  /** Spaces deleted at or before this instant are past the retention period. */
  cutoff(): Date {
    return new Date(this.clock.now().getTime() - this.config.spaceRetentionDays * 86_400_000);
  }

  isRestorable(deletedAt: Date): boolean {
    return deletedAt > this.cutoff();
  }

  /**
   * Removes every space past the retention period, batch by batch, then the content no revision
   * uses any more. Only one process runs it at a time: a transaction-level advisory lock held by an
   * open transaction on a dedicated connection for the whole run (behind a transaction-mode pooler
   * such as PgBouncer, a session-level lock would stay on whichever server connection it landed on).
   */
  async purgeExpired(batchSize = PURGE_BATCH_SIZE): Promise<PurgeResult> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [PURGE_LOCK]);
      if (!locked) return { ran: false, purged: 0 };
      const cutoff = this.cutoff();
      let purged = 0;
      for (;;) {
        const removed = await this.dataSource.transaction(async (em) => {
          const spaces = await this.spaces.purgeBatch(cutoff, batchSize, em);
          // Each removal is the system's, in the batch's transaction (its deletion was recorded when a caller asked for it).
          for (const space of spaces) {
            await this.audit.record(em, {
              organizationId: space.organizationId,
              action: 'space.purged',
              target: { type: 'space', id: space.id, label: space.title },
              source: 'workflow',
            });
          }
          return spaces.length;
        });
        purged += removed;
        if (removed < batchSize) break;
      }
      if (purged > 0) await this.dataSource.transaction((em) => this.revisions.collectGarbage(em));
      return { ran: true, purged };
    } finally {
      // Ends the lock's transaction (it wrote nothing), then hands the connection back.
      if (runner.isTransactionActive) await runner.commitTransaction().catch(() => undefined);
      await runner.release();
    }
  }
}
