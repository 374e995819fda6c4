import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { Collection } from '../space-model/collection.entity';
import { Membership } from '../organizations/membership.entity';
import { Space } from '../space-model/space.entity';
import { queryPrepared, queryPreparedIn } from '../../database/prepared-query';
import { COLLECTION_RANK_SQL, guestReachesCollectionSql, guestReachesSpaceSql, SPACE_RANK_SQL } from './effective-level.sql';

/** A space or collection with the caller's standing in its organization and effective rank on it. */
export interface Ranked<T> {
  item: T;
  /** Whether the caller has an enabled membership (member or guest) in the item's organization. */
  member: boolean;
  organizationRole: MemberRoleOrGuest;
  rank: number;
}

interface RankColumns {
  access_member: boolean;
  access_role: MemberRoleOrGuest;
  access_rank: number;
}

/** The caller's enabled membership in the organization of the row aliased `alias`, as `m`. */
const MEMBERSHIP_JOIN = (alias: string) => `m.organization_id = ${alias}.organization_id AND m.user_id = :accessUser AND NOT m.disabled`;

/**
 * One space or collection with the caller's rank (`$1` the user, `$2` the id). Written once as
 * plain SQL: this is the query behind every route on a space, so it skips the query builder.
 */
const findOneSql = (table: string, alias: string, rankSql: string) =>
  `SELECT ${alias}.*, m.user_id IS NOT NULL AS access_member, m.role AS access_role, ${rankSql} AS access_rank
     FROM ${table} ${alias}
     LEFT JOIN memberships m ON ${MEMBERSHIP_JOIN(alias).replace(':accessUser', '$1')}
    WHERE ${alias}.id = $2`;
const FIND_SPACE_SQL = findOneSql('spaces', 's', SPACE_RANK_SQL);
/**
 * The same, taking the space's row lock (`FOR UPDATE` of the space alone): a writer locks the row and
 * re-checks the caller's access in one statement. Behind a concurrent writer PostgreSQL reads the row
 * as that writer left it (deleted, locked, moved); memberships and grants as the statement found them.
 */
const LOCK_SPACE_SQL = `${FIND_SPACE_SQL} FOR UPDATE OF s`;
const FIND_COLLECTION_SQL = findOneSql('collections', 'c', COLLECTION_RANK_SQL);

/** Queries of the access model: effective ranks and what a caller can see in lists. */
@Injectable()
export class AccessRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The space (deleted or not) with the caller's rank on it, in one query; null when it does not exist.
   * `lock`: its row locked until `manager`'s transaction ends (the space's write path).
   */
  async findSpace(userId: string, spaceId: string, manager?: EntityManager, lock = false): Promise<Ranked<Space> | null> {
    // Behind every space route (the guard's read) and every space write (the lock and re-check, on the write's own
    // connection): prepared once per connection. A read inside a caller's transaction goes through TypeORM.
    const [row] = manager
      ? lock
        ? await queryPreparedIn<Record<string, unknown> & RankColumns>(manager, 'quire_lock_space', LOCK_SPACE_SQL, [userId, spaceId])
        : await manager.query(FIND_SPACE_SQL, [userId, spaceId])
      : await queryPrepared<Record<string, unknown> & RankColumns>(this.dataSource, 'quire_find_space', FIND_SPACE_SQL, [userId, spaceId]);
    return row ? this.hydrateRanked(Space, row, manager ?? this.dataSource.manager) : null;
  }

  /** The collection with the caller's rank on it, in one query; null when it does not exist. */
  async findCollection(userId: string, collectionId: string, manager: EntityManager = this.dataSource.manager): Promise<Ranked<Collection> | null> {
    const [row] = await manager.query(FIND_COLLECTION_SQL, [userId, collectionId]);
    return row ? this.hydrateRanked(Collection, row, manager) : null;
  }

  /** The caller's rank on each of `spaceIds` (one query for a whole page). */
  spaceRanks(userId: string, spaceIds: string[]): Promise<Map<string, number>> {
    return this.ranks('spaces s', 's', SPACE_RANK_SQL, userId, spaceIds);
  }

  /** The caller's rank on each of `collectionIds` (one query for a whole page). */
  collectionRanks(userId: string, collectionIds: string[]): Promise<Map<string, number>> {
    return this.ranks('collections c', 'c', COLLECTION_RANK_SQL, userId, collectionIds);
  }

  /**
   * Narrows a query over spaces aliased `alias` in organization `organizationId` to those the user
   * can view. Members see every space (their role is at least `read`); guests only what grants reach.
   */
  restrictSpacesToVisible<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    alias: string,
    viewer: { organizationId: string; userId: string; role: MemberRoleOrGuest },
  ): SelectQueryBuilder<T> {
    if (viewer.role !== null) return qb;
    return qb.andWhere(guestReachesSpaceSql(alias), { accessOrg: viewer.organizationId, accessUser: viewer.userId });
  }

  /** As `restrictSpacesToVisible`, for collections. */
  restrictCollectionsToVisible<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    alias: string,
    viewer: { organizationId: string; userId: string; role: MemberRoleOrGuest },
  ): SelectQueryBuilder<T> {
    if (viewer.role !== null) return qb;
    return qb.andWhere(guestReachesCollectionSql(alias), { accessOrg: viewer.organizationId, accessUser: viewer.userId });
  }

  /**
   * The spaces of an organization that `member` can view, each with the member's rank on it,
   * by creation time (the member spaces list takes an `order`).
   */
  listSpacesForMember(
    organizationId: string,
    member: { userId: string; role: MemberRoleOrGuest },
    query: Pick<ListQueryDto, 'page' | 'limit'> & { order: 'asc' | 'desc' },
  ): Promise<Page<Ranked<Space>>> {
    const qb = this.dataSource.manager.createQueryBuilder(Space, 's').where('s.organization_id = :organizationId AND s.deleted_at IS NULL', { organizationId });
    this.withRank(qb, 's', SPACE_RANK_SQL, member.userId);
    this.restrictSpacesToVisible(qb, 's', { organizationId, userId: member.userId, role: member.role });
    return paginate<Ranked<Space>>(qb, query, {
      list: `member-spaces:createdAt:${query.order}`,
      columns: ['s.created_at', 's.id'],
      direction: query.order === 'asc' ? 'ASC' : 'DESC',
      keyOf: ({ item }) => [item.createdAt, item.id],
      fetch: (rows) => this.rankedMany(rows as SelectQueryBuilder<Space>),
    });
  }

  /** Adds the caller's membership (`m`) and rank columns to a query over `alias`. */
  withRank<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, alias: string, rankSql: string, userId: string): SelectQueryBuilder<T> {
    return qb
      .leftJoin(Membership, 'm', MEMBERSHIP_JOIN(alias), { accessUser: userId })
      .addSelect('m.user_id IS NOT NULL', 'access_member')
      .addSelect('m.role', 'access_role')
      .addSelect(rankSql, 'access_rank');
  }

  /** Reads the rows of a query built with `withRank`. */
  async rankedMany<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): Promise<Ranked<T>[]> {
    const { entities, raw } = await qb.getRawAndEntities<RankColumns>();
    // One row per entity (the membership join is on a key), in the same order.
    return entities.map((item, index) => ({
      item,
      member: raw[index].access_member,
      organizationRole: raw[index].access_role,
      rank: Number(raw[index].access_rank),
    }));
  }

  /** An entity from a raw row of its table (snake_case columns, as TypeORM would read them) with the rank columns. */
  private hydrateRanked<T extends ObjectLiteral>(target: EntityTarget<T>, row: Record<string, unknown> & RankColumns, manager: EntityManager): Ranked<T> {
    const metadata = manager.connection.getMetadata(target);
    const item = metadata.create() as T;
    for (const column of metadata.columns) {
      column.setEntityValue(item, manager.connection.driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return { item, member: row.access_member, organizationRole: row.access_role, rank: Number(row.access_rank) };
  }

  private async ranks(table: string, alias: string, rankSql: string, userId: string, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; rank: number }[] = await this.dataSource.query(
      `SELECT ${alias}.id, ${rankSql} AS rank
         FROM ${table}
         LEFT JOIN memberships m ON ${MEMBERSHIP_JOIN(alias).replace(':accessUser', '$1')}
        WHERE ${alias}.id = ANY($2)`,
      [userId, ids],
    );
    return new Map(rows.map((row) => [row.id, Number(row.rank)]));
  }
}
