import type { Membership } from '../organizations/membership.entity';

/** Who is asking: their own membership in the organization. */
export type MemberCaller = Pick<Membership, 'userId' | 'role'>;

/** What the caller may do with one member of their organization. */
export interface MemberPermissions {
  view: boolean;
  /** Change the role, or mark them as an SSO member. */
  update: boolean;
  remove: boolean;
}

const isAdmin = (caller: MemberCaller) => caller.role === 'admin';

/** Any member reads the member list; guests see only themselves, so they cannot list. */
export function canListMembers(caller: MemberCaller): boolean {
  return caller.role !== null;
}

/** Admins manage members; anyone may read their own record and leave the organization. */
export function memberPermissions(caller: MemberCaller, target: Pick<Membership, 'userId'>): MemberPermissions {
  const self = caller.userId === target.userId;
  return {
    view: caller.role !== null || self,
    update: isAdmin(caller),
    remove: isAdmin(caller) || self,
  };
}

/** Inviting people into the organization is member management: admins only. */
export function canInviteMembers(caller: MemberCaller): boolean {
  return isAdmin(caller);
}
