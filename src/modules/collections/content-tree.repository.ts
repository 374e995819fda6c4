import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { POSITION_GAP, positionBetween } from '../space-model/position';

/** Advisory-lock namespace of the content tree (one lock per organization, keyed by the hash of its id). */
const TREE_LOCK = 0x717569_20;

export type TreeItemKind = 'space' | 'collection';

/** A space or collection as the tree sees it. */
export interface TreeItem {
  kind: TreeItemKind;
  id: string;
  organizationId: string;
  parentId: string | null;
  position: number;
  deletedAt: Date | null;
}

/** Every space (deleted ones keep their place for a restore) and collection of organization `$1`, except `$2`. */
const ITEMS = `
  SELECT id, position FROM spaces WHERE organization_id = $1 AND id <> $2
  UNION ALL
  SELECT id, position FROM collections WHERE organization_id = $1 AND id <> $2`;

/**
 * The shape of an organization's content: parents and the kept order of spaces and collections.
 * Writers take the organization's tree lock first, so concurrent moves neither interleave their
 * renumbering nor build a cycle of collections between them.
 */
@Injectable()
export class ContentTreeRepository {
  /** Serialises tree changes in the organization until the transaction ends. */
  async lock(organizationId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TREE_LOCK, organizationId]);
  }

  async find(kind: TreeItemKind, id: string, manager: EntityManager): Promise<TreeItem | null> {
    const table = kind === 'space' ? 'spaces' : 'collections';
    const deleted = kind === 'space' ? 'deleted_at' : 'NULL::timestamptz';
    const rows: { id: string; organization_id: string; parent_id: string | null; position: string; deleted_at: Date | null }[] = await manager.query(
      `SELECT id, organization_id, parent_id, position, ${deleted} AS deleted_at FROM ${table} WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    return { kind, id: row.id, organizationId: row.organization_id, parentId: row.parent_id, position: Number(row.position), deletedAt: row.deleted_at };
  }

  /** The position after every item of the organization. */
  async end(organizationId: string, manager: EntityManager): Promise<number> {
    const [row] = await manager.query(`SELECT max(position) AS last FROM (${ITEMS}) items`, [organizationId, '']);
    return row.last === null ? POSITION_GAP : Number(row.last) + POSITION_GAP;
  }

  /**
   * The position for `movingId` right before or after `anchor` (an item of the same organization), or
   * null when the neighbours leave no room (the caller renumbers, then asks again).
   */
  async nextTo(anchor: TreeItem, side: 'before' | 'after', movingId: string, manager: EntityManager): Promise<number | null> {
    const [{ position: anchorPosition }] = await manager.query(`SELECT position FROM (${ITEMS}) items WHERE id = $3`, [
      anchor.organizationId,
      movingId,
      anchor.id,
    ]);
    const before = side === 'before';
    const [neighbour] = await manager.query(
      `SELECT position FROM (${ITEMS}) items WHERE (position, id) ${before ? '<' : '>'} ($3::bigint, $4::text)
        ORDER BY position ${before ? 'DESC' : 'ASC'}, id ${before ? 'DESC' : 'ASC'} LIMIT 1`,
      [anchor.organizationId, movingId, anchorPosition, anchor.id],
    );
    const other = neighbour ? Number(neighbour.position) : null;
    const anchorAt = Number(anchorPosition);
    return before ? positionBetween(other, anchorAt) : positionBetween(anchorAt, other);
  }

  /**
   * Spreads the organization's collections `POSITION_GAP` apart again, keeping the order of all its
   * items, and returns the positions its spaces take in that order: the caller writes those through
   * the space's unit of work (`SpaceUnitOfWork.relocate`), the only writer of `spaces`.
   */
  async renumber(organizationId: string, manager: EntityManager): Promise<{ id: string; position: number }[]> {
    const numbered: { id: string; kind: TreeItemKind; position: string }[] = await manager.query(
      `WITH items AS (
         SELECT id, 'space' AS kind, position FROM spaces WHERE organization_id = $1
         UNION ALL
         SELECT id, 'collection', position FROM collections WHERE organization_id = $1
       )
       SELECT id, kind, row_number() OVER (ORDER BY position, id) * $2 AS position FROM items`,
      [organizationId, POSITION_GAP],
    );
    const of = (kind: TreeItemKind) => numbered.filter((item) => item.kind === kind).map((item) => ({ id: item.id, position: Number(item.position) }));
    const collections = of('collection');
    await manager.query(`UPDATE collections c SET position = r.position FROM unnest($1::text[], $2::bigint[]) AS r (id, position) WHERE c.id = r.id`, [
      collections.map((item) => item.id),
      collections.map((item) => item.position),
    ]);
    return of('space');
  }
}
