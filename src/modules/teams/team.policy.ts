import type { Membership } from '../organizations/membership.entity';
import type { TeamMemberRole } from './team-member.entity';

/** Who is asking: their membership in the organization and their role in the team (null: not in it). */
export interface TeamCaller {
  membership: Pick<Membership, 'role'>;
  teamRole: TeamMemberRole | null;
}

/** The `permissions` object of a team, also used for the route checks. */
export interface TeamPermissions {
  /** Manage the team's members: organization admins, and the team's owners. */
  admin: boolean;
  /** See the team and list its members: any member but guests, who see only themselves. */
  view: boolean;
}

export function teamPermissions({ membership, teamRole }: TeamCaller): TeamPermissions {
  const member = membership.role !== null;
  return {
    admin: membership.role === 'admin' || (member && teamRole === 'owner'),
    view: member,
  };
}

/** Any member but guests reads the organization's teams. */
export function canListTeams(membership: Pick<Membership, 'role'>): boolean {
  return membership.role !== null;
}

/** Creating, renaming and deleting teams is organization administration. */
export function canAdministerTeams(membership: Pick<Membership, 'role'>): boolean {
  return membership.role === 'admin';
}

/** The `permissions` of a team membership item. */
export function teamMemberPermissions(caller: TeamCaller): { view: boolean } {
  return { view: teamPermissions(caller).view };
}
