/** Organization roles, strongest first. `null` (guest) ranks below every role. */
export const MEMBER_ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export type MemberRoleOrGuest = MemberRole | null;

const RANK: Record<MemberRole, number> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function roleRank(role: MemberRoleOrGuest | undefined): number {
  return role ? RANK[role] : 0;
}

/** True when `role` is at least `needed`. */
export function roleAtLeast(role: MemberRoleOrGuest | undefined, needed: MemberRole): boolean {
  return roleRank(role) >= RANK[needed];
}
