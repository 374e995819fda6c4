import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import { Collection } from '../space-model/collection.entity';
import { User } from '../users/user.entity';
import { canCreateAtTopLevel, collectionPermissions, levelFromRank, type CollectionAction, type CollectionPermissions } from './access.policy';
import { AccessRepository } from './access.repository';
import { accessError } from './access.errors';

export interface CollectionAccess {
  collection: Collection;
  level: MemberRoleOrGuest;
  permissions: CollectionPermissions;
  organizationRole: MemberRoleOrGuest;
}

/** The one place that decides access to a collection (same rules as spaces, see access.policy.ts). */
@Injectable()
export class CollectionAccessService {
  constructor(private readonly access: AccessRepository) {}

  /** 404 when the collection does not exist or the caller is not in its organization. */
  async resolve(user: User, collectionId: string, manager?: EntityManager): Promise<CollectionAccess> {
    const found = await this.access.findCollection(user.id, collectionId, manager);
    if (!found || !found.member) throw accessError('collection.not_found', `Collection ${collectionId} not found`);
    const level = levelFromRank(found.rank);
    return { collection: found.item, level, permissions: collectionPermissions(level), organizationRole: found.organizationRole };
  }

  /** resolve() then 403 when permissions[action] is false. */
  async require(user: User, collectionId: string, action: CollectionAction, manager?: EntityManager): Promise<CollectionAccess> {
    const access = await this.resolve(user, collectionId, manager);
    if (!access.permissions[action]) throw accessError('collection.action_forbidden', `You do not have the ${action} permission on collection ${collectionId}`);
    return access;
  }

  /**
   * 403 unless the caller may create a space or collection in `parentId` of organization
   * `organizationId` (null: its top level, which takes the `create` organization role); 404 when
   * the collection is not in that organization.
   */
  async requireCreateIn(user: User, organizationId: string, organizationRole: MemberRoleOrGuest, parentId: string | null): Promise<Collection | null> {
    if (parentId === null) {
      if (!canCreateAtTopLevel(organizationRole))
        throw accessError('collection.top_level_forbidden', `You cannot create content at the top level of organization ${organizationId}`);
      return null;
    }
    const parent = await this.resolve(user, parentId);
    if (parent.collection.organizationId !== organizationId)
      throw accessError('collection.not_found', `Collection ${parentId} not found in organization ${organizationId}`);
    if (!parent.permissions.create) throw accessError('collection.action_forbidden', `You do not have the create permission on collection ${parentId}`);
    return parent.collection;
  }

  /** The caller's `permissions` on each collection of a page, from one query. */
  async permissionsFor(user: User, collections: Collection[]): Promise<Map<string, CollectionPermissions>> {
    const ranks = await this.access.collectionRanks(
      user.id,
      collections.map((collection) => collection.id),
    );
    return new Map(collections.map((collection) => [collection.id, collectionPermissions(levelFromRank(ranks.get(collection.id) ?? 0))]));
  }
}
