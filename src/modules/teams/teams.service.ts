import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { Page } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { CreateTeamDto } from './dto/create-team.dto';
import { ListMemberTeamsQueryDto, ListTeamsQueryDto } from './dto/list-teams-query.dto';
import { TeamMembersRepository } from './team-members.repository';
import { TeamMemberRole } from './team-member.entity';
import { canAdministerTeams, canListTeams, teamPermissions } from './team.policy';
import { TeamRow } from './team.read-model';
import { ManageableBy, TeamsRepository } from './teams.repository';
import { memberError } from '../members/member.errors';
import { teamError } from './team.errors';

@Injectable()
export class TeamsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly teams: TeamsRepository,
    private readonly teamMembers: TeamMembersRepository,
    private readonly organizations: OrganizationsRepository,
  ) {}

  async list(caller: Membership, query: ListTeamsQueryDto): Promise<Page<TeamRow>> {
    if (!canListTeams(caller)) throw teamError('team.list_forbidden', 'Guests cannot list the teams of the organization');
    return this.teams.list(caller.organizationId, caller.userId, query, await this.manageableBy(caller.organizationId, query.owner));
  }

  /** Creates a team with its initial members (as `member`), in one transaction. */
  async create(caller: Membership, dto: CreateTeamDto): Promise<TeamRow> {
    if (!canAdministerTeams(caller)) throw teamError('team.manage_forbidden', 'Only organization admins can create teams');
    return this.dataSource.transaction(async (em) => {
      const id = newId();
      await this.teams.insert({ id, organizationId: caller.organizationId, title: dto.title }, em);
      const resolved = await this.resolveAll(caller.organizationId, dto.members ?? [], 'members', em);
      const members = [...new Set(resolved.values())].map((userId) => ({ userId, role: 'member' as const }));
      await this.teamMembers.upsert(caller.organizationId, id, members, false, em);
      return (await this.teams.find(caller.organizationId, id, caller.userId, em)) as TeamRow;
    });
  }

  async get(caller: Membership, teamId: string): Promise<TeamRow> {
    const row = await this.found(caller, teamId);
    if (!teamPermissions({ membership: caller, teamRole: row.callerRole }).view) throw teamError('team.view_forbidden', 'Guests cannot see teams');
    return row;
  }

  async rename(caller: Membership, teamId: string, title: string): Promise<TeamRow> {
    await this.found(caller, teamId);
    if (!canAdministerTeams(caller)) throw teamError('team.manage_forbidden', 'Only organization admins can rename teams');
    await this.teams.updateTitle(teamId, title);
    return this.found(caller, teamId);
  }

  async delete(caller: Membership, teamId: string): Promise<void> {
    await this.found(caller, teamId);
    if (!canAdministerTeams(caller)) throw teamError('team.manage_forbidden', 'Only organization admins can delete teams');
    await this.teams.delete(teamId);
  }

  /** 404 unless `userId` is a member (or guest) of the caller's organization. */
  async requireMember(caller: Membership, userId: string): Promise<void> {
    if (!(await this.organizations.findMembership(caller.organizationId, userId))) throw memberError('member.not_found', `Member ${userId} not found`);
  }

  /** The teams of one member, with their role in each. */
  async listForMember(caller: Membership, userId: string, query: ListMemberTeamsQueryDto): Promise<Page<TeamRow & { memberRole: TeamMemberRole }>> {
    if (!canListTeams(caller)) throw teamError('team.list_forbidden', 'Guests cannot list teams');
    await this.requireMember(caller, userId);
    return this.teams.listForMember(caller.organizationId, userId, caller.userId, query);
  }

  /**
   * Resolves user IDs or e-mails of organization members; any that name no member make the whole
   * request fail with 400 (inside the caller's transaction, so nothing is written).
   */
  async resolveAll(organizationId: string, identifiers: string[], field: string, em: EntityManager): Promise<Map<string, string>> {
    const resolved = await this.teamMembers.resolveMembers(organizationId, identifiers, em);
    const unknown = identifiers.filter((identifier) => !resolved.has(identifier));
    if (unknown.length > 0) throw teamError('team.unknown_members', `${field}: not members of the organization: ${unknown.slice(0, 20).join(', ')}`);
    return resolved;
  }

  async found(caller: Membership, teamId: string, manager?: EntityManager): Promise<TeamRow> {
    const row = await this.teams.find(caller.organizationId, teamId, caller.userId, manager);
    if (!row) throw teamError('team.not_found', `Team ${teamId} not found`);
    return row;
  }

  /** `owner=<user id>`: the teams that member can manage, by the same policy that fills `permissions.admin`. */
  private async manageableBy(organizationId: string, ownerId: string | undefined): Promise<ManageableBy> {
    if (ownerId === undefined) return 'all';
    const owner = await this.organizations.findMembership(organizationId, ownerId);
    if (!owner) return 'none';
    if (teamPermissions({ membership: owner, teamRole: null }).admin) return 'all';
    if (!teamPermissions({ membership: owner, teamRole: 'owner' }).admin) return 'none';
    return { ownerId };
  }
}
