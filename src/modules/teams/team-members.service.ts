import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { UpdateTeamMembersDto } from './dto/update-team-members.dto';
import { identifiersOf, planTeamMemberChanges } from './team-member-changes';
import { TeamMemberRole } from './team-member.entity';
import { TeamMemberRow, TeamMembersRepository } from './team-members.repository';
import { teamPermissions } from './team.policy';
import { TeamRow } from './team.read-model';
import { TeamsService } from './teams.service';
import { teamError } from './team.errors';

@Injectable()
export class TeamMembersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly teams: TeamsService,
    private readonly teamMembers: TeamMembersRepository,
  ) {}

  async list(caller: Membership, teamId: string, query: ListQueryDto): Promise<{ team: TeamRow; page: Page<TeamMemberRow> }> {
    const team = await this.teams.get(caller, teamId);
    return { team, page: await this.teamMembers.list(caller.organizationId, teamId, query) };
  }

  /** Applies adds, roles and removals at once; any unknown user fails the whole request (400). */
  async update(caller: Membership, teamId: string, dto: UpdateTeamMembersDto): Promise<void> {
    await this.managed(caller, teamId);
    await this.dataSource.transaction(async (em) => {
      const resolved = await this.teams.resolveAll(caller.organizationId, identifiersOf(dto), 'users', em);
      const changes = planTeamMemberChanges(dto, (identifier) => resolved.get(identifier) as string);
      const add = changes.add.map((userId) => ({ userId, role: 'member' as const }));
      await this.teamMembers.upsert(caller.organizationId, teamId, add, false, em);
      await this.teamMembers.upsert(caller.organizationId, teamId, changes.setRole, true, em);
      await this.teamMembers.remove(teamId, changes.remove, em);
    });
  }

  /** Adds a member to the team, or changes their role; without a role, a new member is a `member`. */
  async set(caller: Membership, teamId: string, userId: string, role: TeamMemberRole | undefined): Promise<void> {
    await this.managed(caller, teamId);
    await this.teams.requireMember(caller, userId);
    await this.teamMembers.upsert(caller.organizationId, teamId, [{ userId, role: role ?? 'member' }], role !== undefined, this.dataSource.manager);
  }

  /** Answers whether the user was in the team. */
  async remove(caller: Membership, teamId: string, userId: string): Promise<boolean> {
    await this.managed(caller, teamId);
    await this.teams.requireMember(caller, userId);
    return (await this.teamMembers.remove(teamId, [userId])) > 0;
  }

  private async managed(caller: Membership, teamId: string): Promise<TeamRow> {
    const team = await this.teams.found(caller, teamId);
    if (!teamPermissions({ membership: caller, teamRole: team.callerRole }).admin) {
      throw teamError('team.members_forbidden', "Only organization admins and the team's owners can manage its members");
    }
    return team;
  }
}
