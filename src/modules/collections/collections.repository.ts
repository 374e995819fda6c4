import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { AccessRepository } from '../access/access.repository';
import { Collection } from '../space-model/collection.entity';
import { POSITION_GAP } from '../space-model/position';

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

  /** Deletes a collection (the service has checked it is empty and moved deleted spaces out of it). */
  async delete(collectionId: string, manager: EntityManager): Promise<void> {
    await manager.delete(Collection, { id: collectionId });
  }

  /**
   * Moves the collection, with every collection below it, to the end of another organization's
   * order, at its top level; answers the new positions of the spaces inside the subtree (deleted
   * ones too), which the caller writes through the spaces' unit of work, and the collections moved.
   */
  async transferSubtree(
    collectionId: string,
    targetOrganizationId: string,
    manager: EntityManager,
  ): Promise<{ spaces: { id: string; position: number }[]; collectionIds: string[] }> {
    const end = `(SELECT COALESCE(max(position), 0) FROM (
        SELECT position FROM spaces WHERE organization_id = $2 UNION ALL SELECT position FROM collections WHERE organization_id = $2) target)`;
    const placed: { id: string; kind: 'space' | 'collection'; position: string }[] = await manager.query(
      `${SUBTREE}, items AS (
         SELECT id, 'space' AS kind, position FROM spaces WHERE parent_id IN (SELECT id FROM subtree)
         UNION ALL
         SELECT id, 'collection', position FROM collections WHERE id IN (SELECT id FROM subtree)
       )
       SELECT id, kind, ${end} + row_number() OVER (ORDER BY position, id) * $3 AS position FROM items`,
      [collectionId, targetOrganizationId, POSITION_GAP],
    );
    const collections = placed.filter((item) => item.kind === 'collection');
    await manager.query(
      `UPDATE collections c SET organization_id = $2, position = r.position, updated_at = now(),
              parent_id = CASE WHEN c.id = $1 THEN NULL ELSE c.parent_id END
         FROM unnest($3::text[], $4::bigint[]) AS r (id, position) WHERE c.id = r.id`,
      [collectionId, targetOrganizationId, collections.map((item) => item.id), collections.map((item) => item.position)],
    );
    return {
      spaces: placed.filter((item) => item.kind === 'space').map((item) => ({ id: item.id, position: Number(item.position) })),
      collectionIds: collections.map((item) => item.id),
    };
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
