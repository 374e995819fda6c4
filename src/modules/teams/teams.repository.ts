import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Page, paginate } from '../../common/pagination/paginate';
import { containsPattern } from '../../common/sql/like-pattern';
import { ListMemberTeamsQueryDto, TeamTitleFilterDto } from './dto/list-teams-query.dto';
import { TeamMember, TeamMemberRole } from './team-member.entity';
import { Team } from './team.entity';
import { TeamRow } from './team.read-model';

type Raw = Record<string, unknown>;

/** Live counts of a team `t`, computed per row of the page in the same query (no N+1). */
const TEAM_MEMBERS = `(SELECT count(*) FROM team_members tmc WHERE tmc.team_id = t.id)::int`;
const TEAM_SPACES = `(
  SELECT count(DISTINCT tsg.space_id) FROM permission_grants tsg
    JOIN spaces tss ON tss.id = tsg.space_id AND tss.deleted_at IS NULL
   WHERE tsg.team_id = t.id)::int`;
const CALLER_ROLE = `(SELECT tcr.role FROM team_members tcr WHERE tcr.team_id = t.id AND tcr.user_id = :callerId)`;

/** Which teams a list keeps for the `owner` filter: every team, none, or those a user owns. */
export type ManageableBy = 'all' | 'none' | { ownerId: string };

@Injectable()
export class TeamsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The teams of an organization (alias `t`) with their counts and the caller's role in each. */
  private teamsQuery(organizationId: string, callerId: string, manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<Team> {
    return manager
      .createQueryBuilder(Team, 't')
      .addSelect(TEAM_MEMBERS, 'team_members')
      .addSelect(TEAM_SPACES, 'team_spaces')
      .addSelect(CALLER_ROLE, 'team_caller_role')
      .where('t.organization_id = :organizationId', { organizationId })
      .setParameter('callerId', callerId);
  }

  private async readTeams<T extends object = object>(qb: SelectQueryBuilder<ObjectLiteral>, extra?: (raw: Raw) => T): Promise<(TeamRow & T)[]> {
    const { entities, raw } = await qb.getRawAndEntities();
    const rawById = new Map((raw as Raw[]).map((row) => [row.t_id as string, row]));
    return (entities as Team[]).map((team) => {
      const row = rawById.get(team.id) as Raw;
      return {
        team,
        members: Number(row.team_members),
        spaces: Number(row.team_spaces),
        callerRole: (row.team_caller_role as TeamMemberRole | null) ?? null,
        ...((extra?.(row) ?? {}) as T),
      };
    });
  }

  async find(organizationId: string, teamId: string, callerId: string, manager?: EntityManager): Promise<TeamRow | null> {
    const [row] = await this.readTeams(this.teamsQuery(organizationId, callerId, manager).andWhere('t.id = :teamId', { teamId }));
    return row ?? null;
  }

  /** Several teams at once (e.g. the default teams of a page of SAML providers), by id. */
  async findMany(organizationId: string, teamIds: string[], callerId: string): Promise<Map<string, TeamRow>> {
    if (teamIds.length === 0) return new Map();
    const rows = await this.readTeams(this.teamsQuery(organizationId, callerId).andWhere('t.id IN (:...teamIds)', { teamIds }));
    return new Map(rows.map((row) => [row.team.id, row]));
  }

  async exists(organizationId: string, teamId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return manager.existsBy(Team, { organizationId, id: teamId });
  }

  /** The organization's teams, oldest first. */
  list(organizationId: string, callerId: string, query: TeamTitleFilterDto, manageableBy: ManageableBy): Promise<Page<TeamRow>> {
    const qb = this.teamsQuery(organizationId, callerId);
    this.filterTitle(qb, query.title);
    if (manageableBy === 'none') qb.andWhere('false');
    else if (manageableBy !== 'all') {
      qb.andWhere(`EXISTS (SELECT 1 FROM team_members tow WHERE tow.team_id = t.id AND tow.user_id = :ownerId AND tow.role = 'owner')`, {
        ownerId: manageableBy.ownerId,
      });
    }
    return paginate<TeamRow>(qb, query, {
      list: 'teams:createdAt:asc',
      columns: ['t.created_at', 't.id'],
      direction: 'ASC',
      keyOf: (row) => [row.team.createdAt, row.team.id],
      fetch: (rows) => this.readTeams(rows),
    });
  }

  /** The teams `userId` belongs to, with their role in each, oldest team first. */
  listForMember(
    organizationId: string,
    userId: string,
    callerId: string,
    query: ListMemberTeamsQueryDto,
  ): Promise<Page<TeamRow & { memberRole: TeamMemberRole }>> {
    const qb = this.teamsQuery(organizationId, callerId)
      .innerJoin(TeamMember, 'tm', 'tm.team_id = t.id AND tm.user_id = :userId', { userId })
      .addSelect('tm.role', 'member_team_role');
    this.filterTitle(qb, query.title);
    return paginate<TeamRow & { memberRole: TeamMemberRole }>(qb, query, {
      list: 'member-teams:createdAt:asc',
      columns: ['t.created_at', 't.id'],
      direction: 'ASC',
      keyOf: (row) => [row.team.createdAt, row.team.id],
      fetch: (rows) => this.readTeams(rows, (raw) => ({ memberRole: raw.member_team_role as TeamMemberRole })),
    });
  }

  async insert(team: Pick<Team, 'id' | 'organizationId' | 'title'>, manager: EntityManager): Promise<void> {
    await manager.insert(Team, team);
  }

  async updateTitle(teamId: string, title: string): Promise<void> {
    await this.dataSource.manager.update(Team, { id: teamId }, { title });
  }

  /** Its memberships and grants go with it; SAML providers that defaulted to it keep no default team. */
  async delete(teamId: string): Promise<void> {
    await this.dataSource.manager.delete(Team, { id: teamId });
  }

  private filterTitle(qb: SelectQueryBuilder<Team>, title: string | undefined): void {
    if (title) qb.andWhere('t.title ILIKE :title', { title: containsPattern(title) });
  }
}
