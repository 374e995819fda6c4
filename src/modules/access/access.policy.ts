import { MEMBER_ROLES, roleAtLeast, roleRank, type MemberRole, type MemberRoleOrGuest } from '../../common/roles';
import type { SpaceEditMode } from '../space-model/space.entity';
import type { SpacePermissions, SpacePermissionsJson } from '../space-model/space-permissions';

/**
 * The access model's decisions, as pure functions of a caller's effective level.
 *
 * The effective level on a space or collection is the strongest of (computed in one SQL query by
 * `effective-level.sql.ts`):
 *   - the caller's organization role, unless they are a guest;
 *   - the `defaultLevel` of the space and of every collection above it, for members only (a guest
 *     is someone invited to specific content, so defaults never reach them);
 *   - explicit grants to the caller or to any of their teams, on the space or any collection above it.
 * A caller outside the organization (or whose membership is disabled) has no level at all and
 * gets 404 from every route; a member or guest below the needed level gets 403.
 *
 * What each space permission needs, and why:
 *   view, access     read     reading content is what `read` means
 *   comment          comment
 *   edit             edit     and the space is not locked: `locked` stops every content change
 *   triggerGitSync   edit     and not locked: a sync writes content like an edit does
 *   review           review
 *   merge            review   and not locked: merging is the reviewer's decision, and it writes content
 *   admin            admin    settings, deletion, moves, grants
 *   viewInviteLinks  admin    invite links hand out access, which only admins manage
 *   installIntegration admin
 * Collections:
 *   view             read
 *   create           create   spaces and collections inside it
 *   admin            admin    title, description, default level, moves, grants, deletion
 *   viewInviteLinks  admin
 */

export type SpaceAction = keyof SpacePermissions;

export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  create: boolean;
}

export type CollectionAction = keyof CollectionPermissions;

/** The role whose rank is `rank` (the SQL computes ranks); 0 is no level at all. */
export function levelFromRank(rank: number): MemberRoleOrGuest {
  return MEMBER_ROLES.find((role) => roleRank(role) === rank) ?? null;
}

export function spacePermissions(level: MemberRoleOrGuest, space: { editMode: SpaceEditMode }): SpacePermissionsJson {
  const at = (needed: MemberRole) => roleAtLeast(level, needed);
  const unlocked = space.editMode !== 'locked';
  return {
    view: at('read'),
    access: at('read'),
    admin: at('admin'),
    viewInviteLinks: at('admin'),
    edit: at('edit') && unlocked,
    triggerGitSync: at('edit') && unlocked,
    comment: at('comment'),
    merge: at('review') && unlocked,
    review: at('review'),
    installIntegration: at('admin'),
  };
}

export function collectionPermissions(level: MemberRoleOrGuest): CollectionPermissions {
  return {
    view: roleAtLeast(level, 'read'),
    admin: roleAtLeast(level, 'admin'),
    viewInviteLinks: roleAtLeast(level, 'admin'),
    create: roleAtLeast(level, 'create'),
  };
}

/** Creating a space or collection at the top level of an organization (inside a collection, its `create` decides). */
export function canCreateAtTopLevel(organizationRole: MemberRoleOrGuest): boolean {
  return roleAtLeast(organizationRole, 'create');
}

/** Moving content to another organization takes an admin on both sides. */
export function canTransfer(sourceRole: MemberRoleOrGuest, targetRole: MemberRoleOrGuest): boolean {
  return sourceRole === 'admin' && targetRole === 'admin';
}

/** A member's spaces (with their level on each) are shown to organization admins and to the member. */
export function canListMemberSpaces(caller: { userId: string; role: MemberRoleOrGuest }, memberUserId: string): boolean {
  return caller.role === 'admin' || caller.userId === memberUserId;
}
