import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { MemberRow } from '../members/member.read-model';
import { MembersRepository } from '../members/members.repository';
import { Membership } from '../organizations/membership.entity';
import { User } from '../users/user.entity';
import { TeamMember, TeamMemberRole } from './team-member.entity';

export type TeamMemberRow = MemberRow & { teamRole: TeamMemberRole; addedAt: Date };

@Injectable()
export class TeamMembersRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly members: MembersRepository,
  ) {}

  /** A team's members as organization members (with their counts) and their team role, first added first. */
  list(organizationId: string, teamId: string, query: ListQueryDto): Promise<Page<TeamMemberRow>> {
    const qb = this.members
      .membersQuery(organizationId)
      .innerJoin(TeamMember, 'tm', 'tm.team_id = :teamId AND tm.user_id = m.user_id', { teamId })
      .addSelect('tm.role', 'team_role')
      .addSelect('tm.added_at', 'team_added_at');
    return paginate<TeamMemberRow>(qb, query, {
      list: 'team-members:addedAt:asc',
      columns: ['tm.added_at', 'tm.user_id'],
      direction: 'ASC',
      keyOf: (row) => [row.addedAt, row.user.id],
      fetch: (rows) => this.members.readMembers(rows, (raw) => ({ teamRole: raw.team_role as TeamMemberRole, addedAt: raw.team_added_at as Date })),
    });
  }

  findRole(teamId: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<TeamMember | null> {
    return manager.findOneBy(TeamMember, { teamId, userId });
  }

  /**
   * Resolves user IDs and e-mail addresses (case-insensitively) to the ids of organization members,
   * in one query. Identifiers that name no member of the organization are absent from the map.
   */
  async resolveMembers(organizationId: string, identifiers: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, string>> {
    if (identifiers.length === 0) return new Map();
    const emails = identifiers.filter((identifier) => identifier.includes('@')).map((email) => email.toLowerCase());
    const users = await manager
      .createQueryBuilder(User, 'u')
      .innerJoin(Membership, 'm', 'm.user_id = u.id AND m.organization_id = :organizationId', { organizationId })
      .where('u.id IN (:...identifiers)', { identifiers })
      .orWhere(emails.length > 0 ? 'lower(u.email) IN (:...emails)' : 'false', { emails })
      .getMany();
    const byId = new Map(users.map((user) => [user.id, user.id]));
    const byEmail = new Map(users.map((user) => [user.email.toLowerCase(), user.id]));
    const resolved = new Map<string, string>();
    for (const identifier of identifiers) {
      const userId = byId.get(identifier) ?? byEmail.get(identifier.toLowerCase());
      if (userId) resolved.set(identifier, userId);
    }
    return resolved;
  }

  /** Adds users with `role`; with `overwrite`, users already in the team are given `role` too, else they keep theirs. */
  async upsert(
    organizationId: string,
    teamId: string,
    entries: { userId: string; role: TeamMemberRole }[],
    overwrite: boolean,
    manager: EntityManager,
  ): Promise<void> {
    if (entries.length === 0) return;
    const insert = manager
      .createQueryBuilder()
      .insert()
      .into(TeamMember)
      .values(entries.map(({ userId, role }) => ({ teamId, organizationId, userId, role })));
    if (overwrite) insert.orUpdate(['role'], ['team_id', 'user_id']);
    else insert.orIgnore();
    await insert.execute();
  }

  /** Removes users from the team; answers how many were in it. */
  async remove(teamId: string, userIds: string[], manager: EntityManager = this.dataSource.manager): Promise<number> {
    if (userIds.length === 0) return 0;
    const result = await manager
      .createQueryBuilder()
      .delete()
      .from(TeamMember)
      .where('team_id = :teamId AND user_id IN (:...userIds)', { teamId, userIds })
      .execute();
    return result.affected ?? 0;
  }
}
