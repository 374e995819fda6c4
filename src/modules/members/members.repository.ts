import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { Membership } from '../organizations/membership.entity';
import { User } from '../users/user.entity';
import { ListMembersQueryDto, MemberSort } from './dto/list-members-query.dto';
import { containsPattern } from '../../common/sql/like-pattern';
import { MemberRow } from './member.read-model';

type Raw = Record<string, unknown>;

/**
 * Live counts of a member `m`, computed per row of the page in the same query (no N+1).
 * Spaces: non-deleted spaces with a grant to the member or to one of their teams.
 */
const MEMBER_SPACES = `(
  SELECT count(DISTINCT msg.space_id) FROM permission_grants msg
    JOIN spaces mss ON mss.id = msg.space_id AND mss.deleted_at IS NULL
   WHERE msg.organization_id = m.organization_id
     AND (msg.user_id = m.user_id
          OR msg.team_id IN (SELECT mst.team_id FROM team_members mst WHERE mst.organization_id = m.organization_id AND mst.user_id = m.user_id)))::int`;
/**
 * Sites: the organization's sites that show at least one of those spaces (the member reaches the
 * site's content through them; Quire has no per-site grants).
 */
const MEMBER_SITES = `(
  SELECT count(DISTINCT mst_site.id) FROM sites mst_site
    JOIN site_spaces msts ON msts.site_id = mst_site.id
    JOIN spaces mstp ON mstp.id = msts.space_id AND mstp.deleted_at IS NULL AND mstp.organization_id = mst_site.organization_id
    JOIN permission_grants mstg ON mstg.space_id = mstp.id
   WHERE mst_site.organization_id = m.organization_id
     AND (mstg.user_id = m.user_id
          OR mstg.team_id IN (SELECT mstt.team_id FROM team_members mstt WHERE mstt.organization_id = m.organization_id AND mstt.user_id = m.user_id)))::int`;
const MEMBER_TEAMS = `(SELECT count(*) FROM team_members mtc WHERE mtc.organization_id = m.organization_id AND mtc.user_id = m.user_id)::int`;

/**
 * Sort keys of the member list. The name key is computed by PostgreSQL (selected as
 * `member_name_key`) so the cursor holds exactly what the comparison uses, in the database collation;
 * it is truncated so that it fits in a cursor.
 */
const NAME_KEY = 'left(lower(u.display_name), 200)';
const SORTS: Record<MemberSort, { columns: string[]; keyOf: (row: MemberRow & { nameKey: string }) => (string | Date)[] }> = {
  joinedAt: { columns: ['m.joined_at', 'm.user_id'], keyOf: (row) => [row.membership.joinedAt, row.user.id] },
  lastSeenAt: { columns: ['m.last_seen_at', 'm.user_id'], keyOf: (row) => [row.membership.lastSeenAt as Date, row.user.id] },
  name: { columns: [NAME_KEY, 'm.user_id'], keyOf: (row) => [row.nameKey, row.user.id] },
};

@Injectable()
export class MembersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The members of an organization (alias `m`, user `u`) with their live counts; other modules
   * narrow it (e.g. to a team's members) and read it with `readMembers`.
   */
  membersQuery(organizationId: string, manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<Membership> {
    return manager
      .createQueryBuilder(Membership, 'm')
      .innerJoinAndMapOne('m.user', User, 'u', 'u.id = m.user_id')
      .addSelect(MEMBER_SPACES, 'member_spaces')
      .addSelect(MEMBER_TEAMS, 'member_teams')
      .addSelect(MEMBER_SITES, 'member_sites')
      .where('m.organization_id = :organizationId', { organizationId });
  }

  /** Reads a members query; `extra` picks further raw columns the caller selected. */
  async readMembers<T extends object = object>(qb: SelectQueryBuilder<ObjectLiteral>, extra?: (raw: Raw) => T): Promise<(MemberRow & T)[]> {
    const { entities, raw } = await qb.getRawAndEntities();
    const rawByUser = new Map((raw as Raw[]).map((row) => [row.m_user_id as string, row]));
    return (entities as (Membership & { user: User })[]).map(({ user, ...membership }) => {
      const row = rawByUser.get(user.id) as Raw;
      return {
        membership: Object.assign(new Membership(), membership),
        user,
        spaces: Number(row.member_spaces),
        teams: Number(row.member_teams),
        sites: Number(row.member_sites),
        ...((extra?.(row) ?? {}) as T),
      };
    });
  }

  async find(organizationId: string, userId: string, manager?: EntityManager): Promise<MemberRow | null> {
    const [row] = await this.readMembers(this.membersQuery(organizationId, manager).andWhere('m.user_id = :userId', { userId }));
    return row ?? null;
  }

  list(organizationId: string, query: ListMembersQueryDto): Promise<Page<MemberRow>> {
    const qb = this.membersQuery(organizationId).addSelect(NAME_KEY, 'member_name_key');
    if (query.role === 'guest') qb.andWhere('m.role IS NULL');
    else if (query.role) qb.andWhere('m.role = :role', { role: query.role });
    if (query.search) qb.andWhere('(u.display_name ILIKE :search OR u.email ILIKE :search)', { search: containsPattern(query.search) });
    // Sorting by last activity lists only members who have been seen.
    if (query.sort === 'lastSeenAt') qb.andWhere('m.last_seen_at IS NOT NULL');
    const sort = SORTS[query.sort];
    return paginate<MemberRow & { nameKey: string }>(qb, query, {
      list: `members:${query.sort}:${query.order}`,
      columns: sort.columns,
      direction: query.order === 'asc' ? 'ASC' : 'DESC',
      keyOf: sort.keyOf,
      fetch: (rows) => this.readMembers(rows, (raw) => ({ nameKey: raw.member_name_key as string })),
    });
  }

  /** Serialises changes to an organization's admins, so two requests cannot each remove "another" last admin. */
  async lockAdmins(organizationId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [organizationId]);
  }

  /** Admins able to administer (not disabled), other than `userId`. */
  async countOtherAdmins(organizationId: string, userId: string, manager: EntityManager): Promise<number> {
    return manager
      .createQueryBuilder(Membership, 'm')
      .where('m.organization_id = :organizationId AND m.user_id <> :userId', { organizationId, userId })
      .andWhere(`m.role = 'admin' AND NOT m.disabled`)
      .getCount();
  }

  async updateRole(organizationId: string, userId: string, role: MemberRoleOrGuest, manager: EntityManager): Promise<void> {
    await manager.update(Membership, { organizationId, userId }, { role });
  }

  /** Team memberships and the member's own grants go with it (foreign keys cascade). */
  async delete(organizationId: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.delete(Membership, { organizationId, userId });
  }

  async setSso(organizationId: string, userIds: string[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    if (userIds.length === 0) return;
    await manager
      .createQueryBuilder()
      .update(Membership)
      .set({ sso: true })
      .where('organization_id = :organizationId AND user_id IN (:...userIds)', { organizationId, userIds })
      .execute();
  }

  async touchLastSeen(organizationId: string, userId: string): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(Membership)
      .set({ lastSeenAt: () => 'now()' })
      .where('organization_id = :organizationId AND user_id = :userId', { organizationId, userId })
      .execute();
  }
}
