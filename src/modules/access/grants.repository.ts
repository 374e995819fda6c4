import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import type { MemberRole } from '../../common/roles';
import { Membership } from '../organizations/membership.entity';
import type { TeamRow } from '../teams/team.read-model';
import { TeamsRepository } from '../teams/teams.repository';
import { Team } from '../teams/team.entity';
import { User } from '../users/user.entity';
import type { GrantSubject, GrantTarget, TeamGrant, UserGrant } from './grant.read-model';
import { PermissionGrant } from './permission-grant.entity';

const targetColumn = (target: GrantTarget) => (target.kind === 'space' ? 'space_id' : 'collection_id');
const subjectColumn = (subject: GrantSubject) => ('userId' in subject ? 'user_id' : 'team_id');
const subjectId = (subject: GrantSubject) => ('userId' in subject ? subject.userId : subject.teamId);

/** Explicit grants on spaces and collections. */
@Injectable()
export class GrantsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly teams: TeamsRepository,
  ) {}

  /** The users with a grant on the target, oldest grant first. */
  listUsers(target: GrantTarget, query: ListQueryDto): Promise<Page<UserGrant>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(PermissionGrant, 'g')
      .innerJoinAndMapOne('g.user', User, 'u', 'u.id = g.user_id')
      .where(`g.${targetColumn(target)} = :targetId AND g.user_id IS NOT NULL`, { targetId: target.id });
    return paginate<UserGrant>(qb, query, {
      list: `${target.kind}-user-grants:createdAt:asc`,
      columns: ['g.created_at', 'g.id'],
      direction: 'ASC',
      keyOf: ({ grant }) => [grant.createdAt, grant.id],
      fetch: async (rows) =>
        (await rows.getMany()).map((row) => {
          const { user, ...grant } = row as PermissionGrant & { user: User };
          return { grant: Object.assign(new PermissionGrant(), grant), user };
        }),
    });
  }

  /** The teams with a grant on the target, oldest grant first, with the counts a team shows. */
  listTeams(target: GrantTarget, callerId: string, query: ListQueryDto): Promise<Page<TeamGrant>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(PermissionGrant, 'g')
      .where(`g.${targetColumn(target)} = :targetId AND g.team_id IS NOT NULL`, { targetId: target.id });
    return paginate<TeamGrant>(qb, query, {
      list: `${target.kind}-team-grants:createdAt:asc`,
      columns: ['g.created_at', 'g.id'],
      direction: 'ASC',
      keyOf: ({ grant }) => [grant.createdAt, grant.id],
      fetch: async (rows) => {
        const grants = (await rows.getMany()) as PermissionGrant[];
        const teams = await this.teams.findMany(
          target.organizationId,
          grants.map((grant) => grant.teamId as string),
          callerId,
        );
        return grants.map((grant) => ({ grant, team: teams.get(grant.teamId as string) as TeamRow }));
      },
    });
  }

  /** Which of `userIds` are members or guests of the organization. */
  async membersAmong(organizationId: string, userIds: string[], manager: EntityManager): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await manager
      .createQueryBuilder(Membership, 'm')
      .select('m.user_id', 'id')
      .where('m.organization_id = :organizationId AND m.user_id IN (:...userIds)', { organizationId, userIds })
      .getRawMany<{ id: string }>();
    return new Set(rows.map((row) => row.id));
  }

  /** Which of `teamIds` are teams of the organization. */
  async teamsAmong(organizationId: string, teamIds: string[], manager: EntityManager): Promise<Set<string>> {
    if (teamIds.length === 0) return new Set();
    const rows = await manager
      .createQueryBuilder(Team, 't')
      .select('t.id', 'id')
      .where('t.organization_id = :organizationId AND t.id IN (:...teamIds)', { organizationId, teamIds })
      .getRawMany<{ id: string }>();
    return new Set(rows.map((row) => row.id));
  }

  /** Grants `role` to the subject, or changes the role of its existing grant. */
  async upsert(target: GrantTarget, subject: GrantSubject, role: MemberRole, manager: EntityManager): Promise<void> {
    const column = targetColumn(target);
    const who = subjectColumn(subject);
    await manager.query(
      `INSERT INTO permission_grants (id, organization_id, ${column}, ${who}, role) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (${column}, ${who}) WHERE ${column} IS NOT NULL AND ${who} IS NOT NULL DO UPDATE SET role = EXCLUDED.role`,
      [newId(), target.organizationId, target.id, subjectId(subject), role],
    );
  }

  /** Changes the role of the subject's grant; false when there is none. */
  async updateRole(target: GrantTarget, subject: GrantSubject, role: MemberRole): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .update(PermissionGrant)
      .set({ role })
      .where(`${targetColumn(target)} = :targetId AND ${subjectColumn(subject)} = :subjectId`, { targetId: target.id, subjectId: subjectId(subject) })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Removes the subject's grant; false when there is none. */
  async remove(target: GrantTarget, subject: GrantSubject): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .delete()
      .from(PermissionGrant)
      .where(`${targetColumn(target)} = :targetId AND ${subjectColumn(subject)} = :subjectId`, { targetId: target.id, subjectId: subjectId(subject) })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Removes every grant on the given spaces and collections. */
  async dropOn(targets: { spaceIds: string[]; collectionIds: string[] }, manager: EntityManager): Promise<void> {
    if (targets.spaceIds.length === 0 && targets.collectionIds.length === 0) return;
    await manager.query(`DELETE FROM permission_grants WHERE space_id = ANY($1) OR collection_id = ANY($2)`, [targets.spaceIds, targets.collectionIds]);
  }
}
