import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SpaceAction } from '../access/access.policy';
import { SpaceAccess, SpaceAccessService } from '../access/space-access.service';
import { User } from '../users/user.entity';
import { Space } from '../space-model/space.entity';
import { visibilityIn } from '../space-model/space.rules';
import { NewSpace, SpaceChanges, SpaceCounters, SpaceWritesRepository } from './space-writes.repository';
import { PreparedSearchTable, SearchIndexWritesRepository } from './search-index-writes.repository';
import { spacePermissions } from '../access/access.policy';
import { SpaceTurns } from './space-turns';
import { bindCallerAuditScope } from '../../common/audit/audit.context';

/**
 * Columns of a space the caller's rank does not depend on (`SPACE_RANK_SQL` reads the role, default
 * levels, ancestors and grants); `editMode` only narrows `permissions`, which `spacePermissions`
 * derives from the row.
 */
const RANK_NEUTRAL: ReadonlySet<keyof SpaceChanges> = new Set(['title', 'emoji', 'editMode', 'visibility', 'position']);

/**
 * A revision `commitRevision` activates. With `delta` (the pages that differ from the active
 * revision it was built on, and the pages gone), only those search rows are rewritten; with
 * `searchTable` (a large revision's table, built apart while it was written), that table is
 * swapped in instead of built, or dropped if the activation fails.
 */
export interface CommittedRevision {
  id: string;
  delta?: { changed: string[]; removed: string[] };
  searchTable?: PreparedSearchTable | null;
}

/** A space being written: its row locked and the caller's access re-checked under that lock, in one transaction. */
export interface SpaceWrite {
  /**
   * The write's transaction. Reading it (destructuring included) tells the write that statements of the
   * caller's own may have changed the row, so `reload` then reads the space again: take it only where used.
   */
  readonly em: EntityManager;
  /** The caller's access as read under the lock; `access.space` is the row before this write's changes. */
  readonly access: SpaceAccess;
  readonly space: Space;
  /** Changes columns of the row; a new `parentId` brings the visibility along (`visibilityIn`). */
  update(changes: SpaceChanges): Promise<void>;
  /**
   * Writes a new revision on top of the active one (`produce` gets the active revision's id, read
   * under the lock, and returns the revision it wrote) and makes it the active one, search index
   * included. Imports, change-request merges and integrations all write through it.
   */
  commitRevision<R extends CommittedRevision>(produce: (baseRevisionId: string, em: EntityManager) => Promise<R>): Promise<R>;
  /**
   * Adds to the space's counters (change requests by status, open comments) in this transaction: the
   * writer that changes what a counter counts moves it, under the same lock, so it is always live.
   */
  count(delta: Partial<SpaceCounters>): Promise<void>;
  /** The next change-request number of this space: consecutive, never repeated, given under the lock. */
  nextChangeRequestNumber(): Promise<number>;
  /** The caller's access to the space as this write leaves it (the response of a write shows its own result, whatever commits next). */
  reload(): Promise<SpaceAccess>;
}

/**
 * Told of every change of a space's active revision, inside the transaction that makes it (so
 * work it queues, such as an integration event, commits with the revision or not at all).
 * Registered by modules above this one (`SpaceUnitOfWork.onRevisionActivated`).
 */
export type RevisionActivatedListener = (
  change: { spaceId: string; revisionId: string; actor: User | null; /** The revision it replaces; null for a new space. */ previousRevisionId: string | null },
  em: EntityManager,
) => Promise<void>;

export interface RunOptions {
  /** Deleted spaces answer 404 unless this is set (restore). */
  includeDeleted?: boolean;
  /**
   * Locks to take before the row lock (the organization's tree lock for moves and duplicates):
   * every writer takes the tree lock before any row lock, so a renumbering never waits on a row
   * whose holder waits on the tree.
   */
  lockFirst?: (em: EntityManager) => Promise<void>;
}

/**
 * The one write path of a space, and the only code that changes a `spaces` row (`revision_id`
 * included): `run` opens the transaction, locks the row (`FOR UPDATE`), re-checks the caller's
 * access with that same transaction (deleted → 404, below the action → 403, `locked` → 403 for
 * content changes) and hands the locked space to the work. A PATCH queued behind a DELETE thus
 * finds the space deleted instead of writing to it.
 */
@Injectable()
export class SpaceUnitOfWork {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly rows: SpaceWritesRepository,
    private readonly access: SpaceAccessService,
    private readonly searchIndex: SearchIndexWritesRepository,
  ) {}

  private readonly revisionListeners: RevisionActivatedListener[] = [];
  private readonly turns = new SpaceTurns();

  /** Adds a listener called whenever a space's active revision changes (see RevisionActivatedListener). */
  onRevisionActivated(listener: RevisionActivatedListener): void {
    this.revisionListeners.push(listener);
  }

  run<T>(spaceId: string, caller: User, action: SpaceAction, work: (write: SpaceWrite) => Promise<T>, options: RunOptions = {}): Promise<T> {
    // In this process's queue of the space's writers first (space-turns.ts): the lock goes to them in arrival order.
    return this.turns.take(spaceId, (locked) =>
      this.dataSource.transaction(async (em) => {
        // The request's audit event, for a route this records (`unitOfWork` in the audit catalogue), commits with this transaction.
        bindCallerAuditScope(caller, em.queryRunner);
        await options.lockFirst?.(em);
        // The row lock and the re-check of the caller's access are one statement: the route's guard has
        // authorized the caller before the transaction, so the lock is held only from here to the commit.
        const access = await this.access.require(caller, spaceId, action, { includeDeleted: options.includeDeleted, manager: em, lock: true });
        locked();
        return work(this.writeOf(caller, access, em, options));
      }),
    );
  }

  /**
   * A new space with its first revision (`firstRevision` writes it: empty, or a copy for a
   * duplicate), in the caller's transaction. The caller has checked that the user may create it there.
   */
  async create(space: NewSpace, em: EntityManager, firstRevision: (em: EntityManager) => Promise<{ id: string }>): Promise<void> {
    await this.rows.insert(space, em);
    await this.activate(space.id, { id: (await firstRevision(em)).id }, em);
  }

  /** Deleted spaces left in a collection that is being deleted go to the top level. */
  detachDeletedFrom(collectionId: string, em: EntityManager): Promise<void> {
    return this.rows.detachDeletedFrom(collectionId, em);
  }

  /** New positions for spaces of a renumbered order, or of a subtree moved to `organizationId`; callers hold the tree locks. */
  relocate(rows: { id: string; position: number }[], organizationId: string | null, em: EntityManager): Promise<void> {
    return this.rows.relocate(rows, organizationId, em);
  }

  private writeOf(caller: User, access: SpaceAccess, em: EntityManager, options: RunOptions): SpaceWrite {
    const { space } = access;
    // The row as this write leaves it, while only columns the caller's rank does not depend on changed
    // through `update` and nothing else went through the write (its `em` included): `reload` then
    // answers from it without a query, so the lock is not held for one more round trip.
    let current: Space | undefined = space;
    const unsettle = () => (current = undefined);
    return {
      get em() {
        unsettle();
        return em;
      },
      access,
      space,
      update: async (changes) => {
        const next = { ...changes };
        if (changes.parentId !== undefined) next.visibility = visibilityIn(changes.visibility ?? space.visibility, changes.parentId);
        const updatedAt = await this.rows.update(space.id, next, em);
        if (!current || updatedAt === undefined) return;
        const changed = Object.entries(next).filter(([, value]) => value !== undefined);
        current = changed.every(([column]) => RANK_NEUTRAL.has(column as keyof SpaceChanges))
          ? Object.assign(Object.create(Object.getPrototypeOf(current) as object) as Space, current, Object.fromEntries(changed), { updatedAt })
          : undefined;
      },
      commitRevision: async (produce) => {
        unsettle();
        const revision = await produce(space.revisionId, em);
        try {
          await this.activate(space.id, revision, em, caller, space.revisionId);
        } catch (error) {
          // The search table built apart for the revision: this write's transaction rolls back.
          await this.searchIndex.abandon(revision.searchTable);
          throw error;
        }
        return revision;
      },
      count: (delta) => {
        unsettle();
        return this.rows.count(space.id, delta, em);
      },
      nextChangeRequestNumber: () => {
        unsettle();
        return this.rows.nextChangeRequestNumber(space.id, em);
      },
      reload: async () => {
        if (current === space) return access;
        if (current) return { ...access, space: current, permissions: spacePermissions(access.level, current) };
        return this.access.resolve(caller, space.id, { includeDeleted: options.includeDeleted, manager: em });
      },
    };
  }

  /**
   * Makes `revision` the space's active revision: its search rows follow (only the pages of `delta`
   * when the writer knows which differ, else all of them, in the table built apart when there is one),
   * then the listeners run in this transaction.
   */
  private async activate(
    spaceId: string,
    { id: revisionId, delta, searchTable }: CommittedRevision,
    em: EntityManager,
    actor: User | null = null,
    previousRevisionId: string | null = null,
  ): Promise<void> {
    await this.rows.setRevision(spaceId, revisionId, em);
    if (delta) await this.searchIndex.update(spaceId, revisionId, delta.changed, delta.removed, em);
    else await this.searchIndex.rebuild(spaceId, revisionId, em, searchTable);
    for (const listener of this.revisionListeners) await listener({ spaceId, revisionId, actor, previousRevisionId }, em);
  }
}
