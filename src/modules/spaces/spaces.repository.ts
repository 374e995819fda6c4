import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { AccessRepository } from '../access/access.repository';
import { Space } from '../space-model/space.entity';

@Injectable()
export class SpacesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: AccessRepository,
  ) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Space | null> {
    return manager.findOneBy(Space, { id });
  }

  /**
   * True when `key` is the key of an active share link of a `share-link` site that shows the space
   * (the sites module owns these tables; this read is the spaces module's own, so nothing imports sites).
   */
  async shareKeyOpens(spaceId: string, key: string): Promise<boolean> {
    const [row] = (await this.dataSource.query(
      `SELECT EXISTS (
         SELECT 1 FROM site_share_links l
           JOIN sites s ON s.id = l.site_id AND s.visibility = 'share-link'
           JOIN site_spaces ss ON ss.site_id = s.id AND ss.space_id = $1
          WHERE l.key = $2 AND l.active) AS opens`,
      [spaceId, key],
    )) as { opens: boolean }[];
    return row.opens;
  }

  /** An organization's spaces the viewer can see, in the kept order. */
  listInOrganization(organizationId: string, viewer: { userId: string; role: MemberRoleOrGuest }, query: ListQueryDto): Promise<Page<Space>> {
    const qb = this.live().andWhere('s.organization_id = :organizationId', { organizationId });
    this.access.restrictSpacesToVisible(qb, 's', { organizationId, ...viewer });
    return this.inOrder(qb, query, 'org-spaces');
  }

  /** A collection's spaces the viewer can see, in the kept order. */
  listInCollection(
    collectionId: string,
    viewer: { organizationId: string; userId: string; role: MemberRoleOrGuest },
    query: ListQueryDto,
  ): Promise<Page<Space>> {
    const qb = this.live().andWhere('s.parent_id = :collectionId', { collectionId });
    this.access.restrictSpacesToVisible(qb, 's', viewer);
    return this.inOrder(qb, query, 'collection-spaces');
  }

  /**
   * Deletes up to `limit` spaces deleted at or before `cutoff`, with everything that cascades from
   * them (revisions and their content, grants); returns them (id, organization, title). Rows locked by a restore in
   * progress are skipped, and one restored meanwhile no longer matches.
   */
  async purgeBatch(cutoff: Date, limit: number, manager: EntityManager): Promise<Pick<Space, 'id' | 'organizationId' | 'title'>[]> {
    const result = await manager
      .createQueryBuilder()
      .delete()
      .from(Space)
      .where(
        `id IN (SELECT id FROM spaces WHERE deleted_at IS NOT NULL AND deleted_at <= :cutoff
                 ORDER BY deleted_at, id LIMIT :limit FOR UPDATE SKIP LOCKED)`,
        { cutoff, limit },
      )
      .returning('id, organization_id, title')
      .execute();
    return (result.raw as { id: string; organization_id: string; title: string }[]).map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      title: row.title,
    }));
  }

  private live(): SelectQueryBuilder<Space> {
    return this.dataSource.manager.createQueryBuilder(Space, 's').where('s.deleted_at IS NULL');
  }

  private inOrder(qb: SelectQueryBuilder<Space>, query: ListQueryDto, list: string): Promise<Page<Space>> {
    return paginate<Space>(qb, query, {
      list: `${list}:position:asc`,
      columns: ['s.position', 's.id'],
      direction: 'ASC',
      keyOf: (space) => [space.position, space.id],
    });
  }

  /** The ids among `userIds` that are not members (or guests) of the organization (users a merge rule names must be). */
  async nonMembers(organizationId: string, userIds: string[], manager: EntityManager): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows: { id: string }[] = await manager.query(
      `SELECT x.id FROM unnest($2::text[]) AS x(id) WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = $1 AND m.user_id = x.id) ORDER BY x.id`,
      [organizationId, userIds],
    );
    return rows.map((row) => row.id);
  }
}
