import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import type { MemberRole } from '../../common/roles';
import { InviteDto } from './dto/invite.dto';
import type { GrantSubject, GrantTarget, TeamGrant, UserGrant } from './grant.read-model';
import { GrantsRepository } from './grants.repository';
import type { DomainError } from '../../common/errors/domain-error';
import { accessError } from './access.errors';

/**
 * Explicit grants on a space or collection. Callers have already checked, through the access
 * services, that the caller administers the target.
 */
@Injectable()
export class GrantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly grants: GrantsRepository,
  ) {}

  /** Grants `role` to every user and team named, all or none: an unknown id answers 404 and writes nothing. */
  async invite(target: GrantTarget, dto: InviteDto): Promise<void> {
    const users = [...new Set(dto.users ?? [])];
    const teams = [...new Set(dto.teams ?? [])];
    if (users.length === 0 && teams.length === 0) throw accessError('access.grant_empty', 'users: give users, teams or both');
    await this.dataSource.transaction(async (em) => {
      const members = await this.grants.membersAmong(target.organizationId, users, em);
      const strangerId = users.find((id) => !members.has(id));
      if (strangerId) throw accessError('access.grant_unknown_user', `users: user ${strangerId} is not in the organization`);
      const known = await this.grants.teamsAmong(target.organizationId, teams, em);
      const unknownTeam = teams.find((id) => !known.has(id));
      if (unknownTeam) throw accessError('access.grant_unknown_team', `teams: team ${unknownTeam} is not in the organization`);
      for (const userId of users) await this.grants.upsert(target, { userId }, dto.role, em);
      for (const teamId of teams) await this.grants.upsert(target, { teamId }, dto.role, em);
    });
  }

  listUsers(target: GrantTarget, query: ListQueryDto): Promise<Page<UserGrant>> {
    return this.grants.listUsers(target, query);
  }

  listTeams(target: GrantTarget, callerId: string, query: ListQueryDto): Promise<Page<TeamGrant>> {
    return this.grants.listTeams(target, callerId, query);
  }

  async updateRole(target: GrantTarget, subject: GrantSubject, role: MemberRole): Promise<void> {
    if (!(await this.grants.updateRole(target, subject, role))) throw notGranted(target, subject);
  }

  async remove(target: GrantTarget, subject: GrantSubject): Promise<void> {
    if (!(await this.grants.remove(target, subject))) throw notGranted(target, subject);
  }
}

function notGranted(target: GrantTarget, subject: GrantSubject): DomainError {
  const who = 'userId' in subject ? `User ${subject.userId}` : `Team ${subject.teamId}`;
  return accessError('access.grant_not_found', `${who} has no permission on ${target.kind} ${target.id}`);
}
