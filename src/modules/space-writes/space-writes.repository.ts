import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Space } from '../space-model/space.entity';
import { visibilityInSql } from '../space-model/space.rules';

/** Value of `revision_id` between a space's insert and its first revision's, in one transaction (the foreign key is checked at commit). */
const REVISION_PENDING = '';

/** The counters of a space (section 2.3) and the change-request number sequence start at zero. */
export type SpaceCounters = Pick<Space, 'changeRequestsCount' | 'openChangeRequests' | 'draftChangeRequests' | 'openComments'>;
export type NewSpace = Omit<Space, 'revisionId' | 'createdAt' | 'updatedAt' | 'deletedAt' | 'changeRequestSeq' | 'mergeRules' | keyof SpaceCounters> &
  Partial<Pick<Space, 'mergeRules'>>;

const COUNTER_COLUMNS: Record<keyof SpaceCounters, string> = {
  changeRequestsCount: 'change_requests_count',
  openChangeRequests: 'open_change_requests',
  draftChangeRequests: 'draft_change_requests',
  openComments: 'open_comments',
};

/** The columns a write may change (`id`, `createdBy` and `createdAt` never change; `revisionId` only through `setRevision`). */
export type SpaceChanges = Partial<
  Pick<Space, 'title' | 'emoji' | 'visibility' | 'editMode' | 'defaultLevel' | 'parentId' | 'position' | 'organizationId' | 'deletedAt' | 'mergeRules'>
>;

/**
 * Every statement that changes a `spaces` row. Only `SpaceUnitOfWork` uses it (the module does not
 * export it), so the rules around those writes (lock, re-check, visibility, search index) hold for all.
 */
@Injectable()
export class SpaceWritesRepository {
  async insert(space: NewSpace, manager: EntityManager): Promise<void> {
    await manager.insert(Space, { ...space, revisionId: REVISION_PENDING });
  }

  /** The changes, and `updated_at` as they set it (undefined when there was nothing to change or no row). */
  async update(id: string, changes: SpaceChanges, manager: EntityManager): Promise<Date | undefined> {
    if (Object.keys(changes).length === 0) return undefined;
    const { raw } = await manager.createQueryBuilder().update(Space).set(changes).where('id = :id', { id }).returning('updated_at').execute();
    return (raw as { updated_at: Date }[])[0]?.updated_at;
  }

  async setRevision(id: string, revisionId: string, manager: EntityManager): Promise<void> {
    await manager.update(Space, { id }, { revisionId });
  }

  /** Adds each delta to its counter (`updated_at` is left alone: counting is not editing the space). */
  async count(id: string, delta: Partial<SpaceCounters>, manager: EntityManager): Promise<void> {
    const entries = Object.entries(delta).filter(([, by]) => by !== 0) as [keyof SpaceCounters, number][];
    if (entries.length === 0) return;
    const sets = entries.map(([name], i) => `${COUNTER_COLUMNS[name]} = ${COUNTER_COLUMNS[name]} + $${i + 2}`);
    await manager.query(`UPDATE spaces SET ${sets.join(', ')} WHERE id = $1`, [id, ...entries.map(([, by]) => by)]);
  }

  /** The next change-request number of the space; the caller holds the row lock, so numbers are consecutive. */
  async nextChangeRequestNumber(id: string, manager: EntityManager): Promise<number> {
    // TypeORM answers an UPDATE with [rows, affected count], RETURNING or not.
    const [rows]: [{ n: number }[], number] = await manager.query(
      `UPDATE spaces SET change_request_seq = change_request_seq + 1 WHERE id = $1 RETURNING change_request_seq AS n`,
      [id],
    );
    return rows[0].n;
  }

  /** Deleted spaces still in the collection go to the top level (their visibility as `visibilityIn` says). */
  async detachDeletedFrom(collectionId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE spaces SET parent_id = NULL, visibility = ${visibilityInSql('visibility', 'NULL')}, updated_at = now()
        WHERE parent_id = $1 AND deleted_at IS NOT NULL`,
      [collectionId],
    );
  }

  /** New positions (and, when given, organization) for many spaces at once; parents are unchanged. */
  async relocate(rows: { id: string; position: number }[], organizationId: string | null, manager: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await manager.query(
      `UPDATE spaces s SET position = r.position, organization_id = COALESCE($3, s.organization_id),
              updated_at = CASE WHEN $3::text IS NULL THEN s.updated_at ELSE now() END
         FROM unnest($1::text[], $2::bigint[]) AS r (id, position) WHERE s.id = r.id`,
      [rows.map((row) => row.id), rows.map((row) => row.position), organizationId],
    );
  }
}
