import type { TeamRow } from '../teams/team.read-model';
import type { User } from '../users/user.entity';
import type { PermissionGrant } from './permission-grant.entity';

/** What grants are on: one space or one collection. */
export interface GrantTarget {
  kind: 'space' | 'collection';
  id: string;
  organizationId: string;
}

/** Who a grant is for: one user or one team. */
export type GrantSubject = { userId: string } | { teamId: string };

export interface UserGrant {
  grant: PermissionGrant;
  user: User;
}

export interface TeamGrant {
  grant: PermissionGrant;
  /** The team with its counts and the caller's role in it, as the teams module presents it. */
  team: TeamRow;
}
