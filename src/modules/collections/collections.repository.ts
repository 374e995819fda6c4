import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { AccessRepository } from '../access/access.repository';
import { Collection } from './collection.entity';
import { POSITION_GAP } from './position';

/** Every collection of the subtree rooted at `$1` (itself included). */
const SUBTREE = `WITH RECURSIVE subtree (id) AS (
    SELECT id FROM collections WHERE id = $1
    UNION
    SELECT c.id FROM collections c JOIN subtree ON c.parent_id = subtree.id
  )`;

@Injectable()
export class CollectionsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: AccessRepository,
  ) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Collection | null> {
    return manager.findOneBy(Collection, { id });
  }

  async insert(collection: Pick<Collection, 'id' | 'organizationId' | 'parentId' | 'title' | 'position'>, manager: EntityManager): Promise<Collection> {
    await manager.insert(Collection, collection);
    return (await this.findById(collection.id, manager)) as Collection;
  }

  async update(id: string, changes: Partial<Collection>, manager: EntityManager = this.dataSource.manager): Promise<void> {
    if (Object.keys(changes).length > 0) await manager.update(Collection, { id }, changes);
  }

  /** Whether `candidateId` is `collectionId` or lies below it (moving `collectionId` under it would make a cycle). */
  async isWithin(candidateId: string, collectionId: string, manager: EntityManager): Promise<boolean> {
    const rows = await manager.query(`${SUBTREE} SELECT 1 FROM subtree WHERE id = $2`, [collectionId, candidateId]);
    return rows.length > 0;
  }

  /** Spaces (not deleted) and collections directly inside the collection. */
  async countChildren(collectionId: string, manager: EntityManager): Promise<{ spaces: number; collections: number }> {
    const [row] = await manager.query(
      `SELECT (SELECT count(*) FROM spaces WHERE parent_id = $1 AND deleted_at IS NULL)::int AS spaces,
              (SELECT count(*) FROM collections WHERE parent_id = $1)::int AS collections`,
      [collectionId],
    );
    return row;
  }

  /**
   * Deletes an empty collection. Deleted spaces still inside it (waiting for restore or purge)
   * move to the top level first, so a restore brings them back where they can be seen.
   */
  async delete(collectionId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE spaces SET parent_id = NULL, visibility = CASE WHEN visibility = 'in-collection' THEN 'private' ELSE visibility END
        WHERE parent_id = $1 AND deleted_at IS NOT NULL`,
      [collectionId],
    );
    await manager.delete(Collection, { id: collectionId });
  }

  /**
   * Moves the collection, with everything below it (deleted spaces too), to the end of another
   * organization's order, at its top level. Grants cannot follow: the users and teams they name
   * belong to the old organization, so they are dropped.
   */
  async transferSubtree(collectionId: string, targetOrganizationId: string, manager: EntityManager): Promise<void> {
    const params = [collectionId, targetOrganizationId, POSITION_GAP];
    const end = `(SELECT COALESCE(max(position), 0) FROM (
        SELECT position FROM spaces WHERE organization_id = $2 UNION ALL SELECT position FROM collections WHERE organization_id = $2) target)`;
    await manager.query(
      `${SUBTREE}, items AS (
         SELECT id, 'space' AS kind, position FROM spaces WHERE parent_id IN (SELECT id FROM subtree)
         UNION ALL
         SELECT id, 'collection', position FROM collections WHERE id IN (SELECT id FROM subtree)
       ),
       placed AS (SELECT id, kind, ${end} + row_number() OVER (ORDER BY position, id) * $3 AS position FROM items),
       dropped AS (
         DELETE FROM permission_grants
          WHERE collection_id IN (SELECT id FROM placed WHERE kind = 'collection') OR space_id IN (SELECT id FROM placed WHERE kind = 'space')
       ),
       moved_spaces AS (
         UPDATE spaces s SET organization_id = $2, position = p.position, updated_at = now() FROM placed p WHERE p.kind = 'space' AND s.id = p.id
       )
       UPDATE collections c SET organization_id = $2, position = p.position, updated_at = now(),
              parent_id = CASE WHEN c.id = $1 THEN NULL ELSE c.parent_id END
         FROM placed p WHERE p.kind = 'collection' AND c.id = p.id`,
      params,
    );
  }

  /** The organization's collections the viewer can see, in the kept order; `nested` false keeps the top level only. */
  listInOrganization(
    organizationId: string,
    nested: boolean,
    viewer: { userId: string; role: MemberRoleOrGuest },
    query: ListQueryDto,
  ): Promise<Page<Collection>> {
    const qb = this.dataSource.manager.createQueryBuilder(Collection, 'c').where('c.organization_id = :organizationId', { organizationId });
    if (!nested) qb.andWhere('c.parent_id IS NULL');
    this.access.restrictCollectionsToVisible(qb, 'c', { organizationId, ...viewer });
    return paginate<Collection>(qb, query, {
      list: `org-collections:${nested ? 'nested' : 'top'}:position:asc`,
      columns: ['c.position', 'c.id'],
      direction: 'ASC',
      keyOf: (collection) => [collection.position, collection.id],
    });
  }
}
