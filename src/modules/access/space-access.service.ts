import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { roleAtLeast, type MemberRoleOrGuest } from '../../common/roles';
import { Space } from '../space-model/space.entity';
import { User } from '../users/user.entity';
import type { SpacePermissionsJson } from '../space-model/space-permissions';
import { levelFromRank, spacePermissions, type SpaceAction } from './access.policy';
import { AccessRepository } from './access.repository';
import { accessError } from './access.errors';

export type { SpaceAction } from './access.policy';

export interface SpaceAccess {
  space: Space;
  /** The caller's effective level on the space; null: no access (a guest without a grant). */
  level: MemberRoleOrGuest;
  /** The `SpacePermissions` the routes check, plus the flag only the JSON shows. */
  permissions: SpacePermissionsJson;
  /** The caller's role in the space's organization (null for a guest). */
  organizationRole: MemberRoleOrGuest;
}

export interface ResolveOptions {
  /** Deleted spaces answer 404 unless this is set (only restore reaches them). */
  includeDeleted?: boolean;
  manager?: EntityManager;
  /** Lock the space's row in `manager`'s transaction with the same statement (`SpaceUnitOfWork`). */
  lock?: boolean;
}

/** Levels below which content actions are refused whatever the edit mode, for the 403 message. */
const LOCKABLE: Partial<Record<SpaceAction, 'edit' | 'review'>> = { edit: 'edit', triggerGitSync: 'edit', merge: 'review' };

/**
 * The one place that decides access to a space: every route on a space (and on its content,
 * comments and change requests) declares `@SpaceAction`, whose guard calls `require`, and every
 * write checks again through `SpaceUnitOfWork`, under the row lock. Services do not call it.
 */
@Injectable()
export class SpaceAccessService {
  constructor(private readonly access: AccessRepository) {}

  /** 404 when the space does not exist, is deleted, or the caller has no way in (not in its organization and no grant). */
  async resolve(user: User, spaceId: string, options: ResolveOptions = {}): Promise<SpaceAccess> {
    const found = await this.access.findSpace(user.id, spaceId, options.manager, options.lock);
    if (!found || !found.member || (found.item.deletedAt !== null && !options.includeDeleted)) {
      throw accessError('space.not_found', `Space ${spaceId} not found`);
    }
    const level = levelFromRank(found.rank);
    return { space: found.item, level, permissions: spacePermissions(level, found.item), organizationRole: found.organizationRole };
  }

  /** resolve() then 403 when permissions[action] is false. While editMode is 'locked', edit and merge are false for everyone. */
  async require(user: User, spaceId: string, action: SpaceAction, options: ResolveOptions = {}): Promise<SpaceAccess> {
    const access = await this.resolve(user, spaceId, options);
    if (!access.permissions[action]) {
      const lockable = LOCKABLE[action];
      if (lockable && access.space.editMode === 'locked' && roleAtLeast(access.level, lockable)) {
        throw accessError('space.locked', `Space ${spaceId} is locked: its content cannot change until an admin sets editMode to live`);
      }
      throw accessError('space.action_forbidden', `You do not have the ${action} permission on space ${spaceId}`);
    }
    return access;
  }

  /** The caller's `permissions` on each space of a page, from one query. */
  async permissionsFor(user: User, spaces: Space[]): Promise<Map<string, SpacePermissionsJson>> {
    const ranks = await this.access.spaceRanks(
      user.id,
      spaces.map((space) => space.id),
    );
    return new Map(spaces.map((space) => [space.id, spacePermissions(levelFromRank(ranks.get(space.id) ?? 0), space)]));
  }
}
