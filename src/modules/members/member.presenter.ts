import type { MemberRoleOrGuest } from '../../common/roles';
import { AppConfig } from '../../config/app-config';
import type { EmailVisibility } from '../users/user.policy';
import { presentUser, UserJson } from '../users/user.presenter';
import { MemberRow } from './member.read-model';

/** `Member` as the API shows it (section 2.14). */
export interface MemberJson {
  object: 'member';
  id: string;
  role: MemberRoleOrGuest;
  user: UserJson;
  disabled: boolean;
  joinedAt: string;
  lastSeenAt?: string;
  sso: boolean;
  spaces: number;
  teams: number;
  /** Sites showing a space the member holds a grant on (see MembersRepository). */
  sites: number;
}

export function presentMember({ membership, user, spaces, teams, sites }: MemberRow, config: AppConfig, emails: EmailVisibility): MemberJson {
  const json: MemberJson = {
    object: 'member',
    id: user.id,
    role: membership.role,
    user: presentUser(user, config, emails),
    disabled: membership.disabled,
    joinedAt: membership.joinedAt.toISOString(),
    sso: membership.sso,
    spaces,
    teams,
    sites,
  };
  if (membership.lastSeenAt) json.lastSeenAt = membership.lastSeenAt.toISOString();
  return json;
}

/** The answer to a member's ping: their signed visitor claims, under the public description's name. */
export interface VisitorClaimsJson {
  gitbookVisitorClaims: string;
}

export function presentVisitorClaims(token: string): VisitorClaimsJson {
  return { gitbookVisitorClaims: token };
}
