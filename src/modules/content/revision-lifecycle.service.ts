import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { GarbageCollected } from './content.read-model';
import { RevisionLifecycleRepository } from './revision-lifecycle.repository';
import { Revision } from './revision.entity';

/**
 * How other modules create, copy and clean up a space's content without knowing its model: the
 * spaces module (and change requests) call these inside their own transactions. Making a revision
 * the active one is `SpaceUnitOfWork`'s (it writes `spaces.revision_id`).
 */
@Injectable()
export class RevisionLifecycleService {
  constructor(private readonly rows: RevisionLifecycleRepository) {}

  /** The empty first revision of a new space; the caller points the space at it in the same transaction. */
  createInitial(spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    return this.rows.createInitial(spaceId, userId, manager);
  }

  /**
   * A revision of `spaceId` with the same content as `revisionId` (space duplication), sharing every body
   * and file's bytes with the source; the spaces' unit of work makes it the new space's active revision.
   */
  copyToSpace(revisionId: string, spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    return this.rows.copyToSpace(revisionId, spaceId, userId, manager);
  }

  /** Removes bodies and file bytes no revision uses any more (after the spaces module purged spaces). */
  collectGarbage(manager: EntityManager): Promise<GarbageCollected> {
    return this.rows.collectGarbage(manager);
  }
}
