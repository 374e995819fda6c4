import type { MemberRoleOrGuest } from '../../common/roles';
import type { InviteResult, PendingInvite } from './invite.read-model';

export interface InviteResultJson {
  users: string[];
  invited: number;
  /** Not in the public schema (which allows extra fields): tells the caller which e-mails changed nothing. */
  alreadyMembers: string[];
  /** Not in the public schema either: e-mails whose invitation waits for the person to accept it. */
  pending: string[];
}

export function presentInviteResult({ addedUserIds, alreadyMembers, pending }: InviteResult): InviteResultJson {
  return { users: addedUserIds, invited: addedUserIds.length, alreadyMembers, pending };
}

/** A pending invitation as its invitee sees it (`GET /v1/user/invites`; Quire's own shape). */
export interface PendingInviteJson {
  object: 'organization-invite';
  id: string;
  /** The invitee is not a member yet: only the organization's id and title. */
  organization: { id: string; title: string };
  role: MemberRoleOrGuest;
  sso: boolean;
  createdAt: string;
}

export function presentPendingInvite({ invite, organization }: PendingInvite): PendingInviteJson {
  return {
    object: 'organization-invite',
    id: invite.id,
    organization: { id: organization.id, title: organization.title },
    role: invite.role,
    sso: invite.sso,
    createdAt: invite.createdAt.toISOString(),
  };
}
