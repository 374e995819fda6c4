import { AppConfig } from '../../config/app-config';
import type { MemberRole, MemberRoleOrGuest } from '../../common/roles';
import { teamPermissions } from '../teams/team.policy';
import { presentTeam, TeamJson } from '../teams/team.presenter';
import type { EmailVisibility } from '../users/user.policy';
import { presentUser, UserJson } from '../users/user.presenter';
import type { TeamGrant, UserGrant } from './grant.read-model';

/** `UserContentPermission`: a user's explicit role on a space or collection. */
export interface UserGrantJson {
  permission: MemberRole;
  user: UserJson;
}

/** A team's explicit role on a space or collection, with the team as the teams routes show it to the caller. */
export interface TeamGrantJson {
  permission: MemberRole;
  team: TeamJson;
}

export function presentUserGrant({ grant, user }: UserGrant, config: AppConfig, emails: EmailVisibility): UserGrantJson {
  return { permission: grant.role, user: presentUser(user, config, emails) };
}

export function presentTeamGrant({ grant, team }: TeamGrant, callerOrganizationRole: MemberRoleOrGuest): TeamGrantJson {
  return { permission: grant.role, team: presentTeam(team, teamPermissions({ membership: { role: callerOrganizationRole }, teamRole: team.callerRole })) };
}
