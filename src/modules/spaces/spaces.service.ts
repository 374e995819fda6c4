import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import type { SpacePermissionsJson } from '../space-model/space-permissions';
import { CollectionAccess, CollectionAccessService } from '../access/collection-access.service';
import { SpaceAccess, SpaceAccessService } from '../access/space-access.service';
import { TransferAccessService } from '../access/transfer-access.service';
import { ContentTreeService } from '../collections/content-tree.service';
import { MoveDto } from '../collections/dto/move.dto';
import { RevisionLifecycleService } from '../content/revision-lifecycle.service';
import { Membership } from '../organizations/membership.entity';
import { User } from '../users/user.entity';
import { Clock } from './clock';
import { CreateSpaceDto, TransferSpaceDto, UpdateSpaceDto } from './dto/space.dto';
import { copyTitle } from './copy-title';
import { Space } from '../space-model/space.entity';
import { SpaceRetentionService } from './space-retention.service';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { SpaceChanges } from '../space-writes/space-writes.repository';
import { SpacesRepository } from './spaces.repository';
import { mergeRuleUsers } from '../space-model/merge-rules';
import { spaceError } from './space.errors';

export interface SpaceWithPermissions {
  space: Space;
  permissions: SpacePermissionsJson;
}

/**
 * Spaces: creation with their first revision, settings, soft delete and restore, duplication,
 * moves in the kept order and transfers. Routes declare the permission they need (`@SpaceAction`);
 * every write goes through `SpaceUnitOfWork`, which checks it again under the row lock.
 */
@Injectable()
export class SpacesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly spaces: SpacesRepository,
    private readonly writes: SpaceUnitOfWork,
    private readonly access: SpaceAccessService,
    private readonly collectionAccess: CollectionAccessService,
    private readonly transfers: TransferAccessService,
    private readonly tree: ContentTreeService,
    private readonly revisions: RevisionLifecycleService,
    private readonly retention: SpaceRetentionService,
    private readonly clock: Clock,
  ) {}

  /** A new, empty space at the end of the organization's order, with its first revision, in one transaction. */
  async create(user: User, membership: Pick<Membership, 'organizationId' | 'role'>, dto: CreateSpaceDto): Promise<SpaceAccess> {
    const id = await this.dataSource.transaction((em) => this.createWithin(em, user, membership, dto));
    return this.access.resolve(user, id);
  }

  /**
   * `create` inside a caller's transaction (a site created with a new space writes both or neither):
   * checks the caller may create there, then writes the space and its first revision. Returns its id.
   */
  async createWithin(em: EntityManager, user: User, membership: Pick<Membership, 'organizationId' | 'role'>, dto: CreateSpaceDto): Promise<string> {
    const { organizationId } = membership;
    const parentId = dto.parent ?? null;
    await this.collectionAccess.requireCreateIn(user, organizationId, membership.role, parentId);
    const id = newId();
    await this.tree.lock(organizationId, em);
    const position = await this.tree.end(organizationId, em);
    const space = {
      id,
      organizationId,
      parentId,
      title: dto.title ?? '',
      emoji: dto.emoji ?? '',
      visibility: 'private' as const,
      editMode: dto.editMode ?? 'live',
      defaultLevel: null,
      createdBy: user.id,
      position,
    };
    await this.writes.create(space, em, (tx) => this.revisions.createInitial(id, user.id, tx));
    return id;
  }

  /** `shareKey` when it opens a share-link site showing the space, else undefined: a wrong key gets nothing extra. */
  async openingShareKey(spaceId: string, shareKey: string | undefined): Promise<string | undefined> {
    if (shareKey === undefined) return undefined;
    return (await this.spaces.shareKeyOpens(spaceId, shareKey)) ? shareKey : undefined;
  }

  update(user: User, spaceId: string, dto: UpdateSpaceDto): Promise<SpaceAccess> {
    // `write.em` only where a query needs it: a write that sent its own statements reloads the row from the database.
    return this.writes.run(spaceId, user, 'admin', async (write) => {
      const { space, update, reload } = write;
      // Checked under the row lock, so a concurrent move cannot take the space out of its collection meanwhile.
      if (dto.visibility === 'in-collection' && space.parentId === null) {
        throw spaceError('space.in_collection_outside_collection', 'visibility: in-collection is only for a space inside a collection');
      }
      const changes: SpaceChanges = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.emoji !== undefined) changes.emoji = dto.emoji ?? '';
      if (dto.editMode !== undefined) changes.editMode = dto.editMode;
      if (dto.defaultLevel !== undefined) changes.defaultLevel = dto.defaultLevel;
      if (dto.visibility !== undefined) changes.visibility = dto.visibility;
      if (dto.mergeRules !== undefined) {
        const strangers = await this.spaces.nonMembers(space.organizationId, mergeRuleUsers(dto.mergeRules), write.em);
        if (strangers.length > 0)
          throw spaceError('space.merge_rules_invalid', `mergeRules: users are not members of the organization: ${strangers.join(', ')}`);
      }
      // `inherit` is stored as null, so a space that inherits follows its organization's later changes.
      if (dto.mergeRules !== undefined) changes.mergeRules = dto.mergeRules.type === 'inherit' ? null : dto.mergeRules;
      await update(changes);
      return reload();
    });
  }

  /** Soft delete: hidden from lists and 404 everywhere but restore, until the purge removes it. */
  async delete(user: User, spaceId: string): Promise<void> {
    await this.writes.run(spaceId, user, 'admin', ({ update }) => update({ deletedAt: this.clock.now() }));
  }

  /**
   * Brings a deleted space back within the retention period. The row stays locked until commit:
   * the purge skips locked rows, and a restore waiting behind a purge finds the space gone (404).
   */
  restore(user: User, spaceId: string): Promise<SpaceAccess> {
    return this.writes.run(
      spaceId,
      user,
      'admin',
      async ({ space, update, reload }) => {
        if (space.deletedAt !== null && !this.retention.isRestorable(space.deletedAt)) {
          throw spaceError('space.retention_expired', `Space ${spaceId} not found: it was deleted more than the retention period ago`);
        }
        if (space.deletedAt === null) throw spaceError('space.not_deleted', `Space ${spaceId} is not deleted`);
        await update({ deletedAt: null });
        return reload();
      },
      { includeDeleted: true },
    );
  }

  /** A copy next to the source: same settings, a copy of its active revision, title marked as a copy. */
  async duplicate(user: User, source: SpaceAccess): Promise<SpaceAccess> {
    const { organizationId, parentId } = source.space;
    await this.collectionAccess.requireCreateIn(user, organizationId, source.organizationRole, parentId);
    const id = newId();
    await this.writes.run(
      source.space.id,
      user,
      'view',
      async ({ space, em }) => {
        this.stillIn(space, organizationId);
        const position = await this.tree.after('space', space.id, id, em);
        const copy = {
          id,
          organizationId,
          parentId: space.parentId,
          title: copyTitle(space.title),
          emoji: space.emoji,
          visibility: space.visibility,
          editMode: space.editMode,
          defaultLevel: space.defaultLevel,
          mergeRules: space.mergeRules,
          createdBy: user.id,
          position,
        };
        await this.writes.create(copy, em, (tx) => this.revisions.copyToSpace(space.revisionId, id, user.id, tx));
      },
      { lockFirst: (em) => this.tree.lock(organizationId, em) },
    );
    return this.access.resolve(user, id);
  }

  async move(user: User, current: SpaceAccess, dto: MoveDto): Promise<SpaceAccess> {
    if (dto.parent === undefined && dto.position === undefined) throw spaceError('space.move_empty', 'parent: give parent, position or both');
    const { organizationId, id: spaceId } = current.space;
    const parentId = dto.parent === undefined ? current.space.parentId : dto.parent;
    if (parentId !== current.space.parentId) await this.collectionAccess.requireCreateIn(user, organizationId, current.organizationRole, parentId);
    return this.writes.run(
      spaceId,
      user,
      'admin',
      async ({ space, em, update, reload }) => {
        this.stillIn(space, organizationId);
        const position = await this.tree.placeForMove({ kind: 'space', ...space }, parentId, dto.position, em);
        await update({ parentId, position });
        return reload();
      },
      { lockFirst: (em) => this.tree.lock(organizationId, em) },
    );
  }

  /** Moves the space to another organization (optionally into one of its collections); grants are dropped. */
  async transfer(user: User, current: SpaceAccess, dto: TransferSpaceDto): Promise<SpaceAccess> {
    const { organizationId, id: spaceId } = current.space;
    await this.transfers.requireTransfer(user, { organizationId, organizationRole: current.organizationRole }, dto.organization);
    const parentId = dto.collection ?? null;
    // The caller administers the target, so only the collection's existence there is in question.
    if (parentId !== null) await this.collectionAccess.requireCreateIn(user, dto.organization, 'admin', parentId);
    return this.writes.run(
      spaceId,
      user,
      'admin',
      async ({ space, em, update, reload }) => {
        this.stillIn(space, organizationId);
        const position = await this.tree.end(dto.organization, em);
        await update({ organizationId: dto.organization, parentId, position });
        await this.transfers.dropGrantsOfTransferred({ spaceIds: [spaceId], collectionIds: [] }, em);
        return reload();
      },
      { lockFirst: (em) => this.tree.lockAll([organizationId, dto.organization], em) },
    );
  }

  async listInOrganization(user: User, membership: Membership, query: ListQueryDto): Promise<Page<SpaceWithPermissions>> {
    const page = await this.spaces.listInOrganization(membership.organizationId, { userId: user.id, role: membership.role }, query);
    return this.withPermissions(user, page);
  }

  async listInCollection(user: User, { collection, organizationRole }: CollectionAccess, query: ListQueryDto): Promise<Page<SpaceWithPermissions>> {
    const viewer = { organizationId: collection.organizationId, userId: user.id, role: organizationRole };
    return this.withPermissions(user, await this.spaces.listInCollection(collection.id, viewer, query));
  }

  /** The tree lock taken was the organization's the space was in before the lock: a transfer in between makes the caller retry. */
  private stillIn(space: Space, organizationId: string): void {
    if (space.organizationId !== organizationId)
      throw spaceError('space.moved_meanwhile', `Space ${space.id} moved to another organization meanwhile; try again`);
  }

  private async withPermissions(user: User, page: Page<Space>): Promise<Page<SpaceWithPermissions>> {
    const permissions = await this.access.permissionsFor(user, page.items);
    return { ...page, items: page.items.map((space) => ({ space, permissions: permissions.get(space.id) as SpacePermissionsJson })) };
  }
}
