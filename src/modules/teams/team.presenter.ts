import { AppConfig } from '../../config/app-config';
import { MemberJson, presentMember } from '../members/member.presenter';
import type { MemberRow } from '../members/member.read-model';
import type { EmailVisibility } from '../users/user.policy';
import type { TeamMemberRole } from './team-member.entity';
import type { TeamPermissions } from './team.policy';
import type { TeamRow } from './team.read-model';

/** `Team` as the API shows it (section 2.15). */
export interface TeamJson {
  object: 'team';
  id: string;
  title: string;
  members: number;
  spaces: number;
  createdAt: string;
  permissions: TeamPermissions;
}

export function presentTeam({ team, members, spaces }: TeamRow, permissions: TeamPermissions): TeamJson {
  return { object: 'team', id: team.id, title: team.title, members, spaces, createdAt: team.createdAt.toISOString(), permissions };
}

/** Team membership item (2.14): the member as the organization sees them, and their role in the team. */
export interface TeamMembershipJson {
  organization: MemberJson;
  team: { role: TeamMemberRole };
  permissions: { view: boolean };
}

export function presentTeamMembership(
  row: MemberRow,
  role: TeamMemberRole,
  permissions: { view: boolean },
  config: AppConfig,
  emails: EmailVisibility,
): TeamMembershipJson {
  return { organization: presentMember(row, config, emails), team: { role }, permissions };
}

/** Member team item (2.14): a team of the member, and the member's role in it. */
export interface MemberTeamJson {
  team: TeamJson;
  member: { role: TeamMemberRole };
}

export function presentMemberTeam(row: TeamRow, role: TeamMemberRole, permissions: TeamPermissions): MemberTeamJson {
  return { team: presentTeam(row, permissions), member: { role } };
}
