import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import type { SpacePermissionsJson } from '../access/access.policy';
import { CollectionAccessService } from '../access/collection-access.service';
import { SpaceAccess, SpaceAccessService } from '../access/space-access.service';
import { TransferAccessService } from '../access/transfer-access.service';
import { ContentTreeService } from '../collections/content-tree.service';
import { MoveDto } from '../collections/dto/move.dto';
import { RevisionLifecycleService } from '../content/revision-lifecycle.service';
import { Membership } from '../organizations/membership.entity';
import { User } from '../users/user.entity';
import { Clock } from './clock';
import { CreateSpaceDto, TransferSpaceDto, UpdateSpaceDto } from './dto/space.dto';
import { copyTitle, visibilityIn } from './space.rules';
import { Space } from './space.entity';
import { SpaceRetentionService } from './space-retention.service';
import { SpacesRepository } from './spaces.repository';

export interface SpaceWithPermissions {
  space: Space;
  permissions: SpacePermissionsJson;
}

/**
 * Spaces: creation with their first revision, settings, soft delete and restore, duplication,
 * moves in the kept order and transfers. Access decisions come from the access services.
 */
@Injectable()
export class SpacesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly spaces: SpacesRepository,
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
    const { organizationId } = membership;
    const parentId = dto.parent ?? null;
    await this.collectionAccess.requireCreateIn(user, organizationId, membership.role, parentId);
    const id = newId();
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(organizationId, em);
      const position = await this.tree.end(organizationId, em);
      await this.spaces.insert(
        {
          id,
          organizationId,
          parentId,
          title: dto.title ?? '',
          emoji: dto.emoji ?? '',
          visibility: 'private',
          editMode: dto.editMode ?? 'live',
          defaultLevel: null,
          createdBy: user.id,
          position,
        },
        em,
      );
      const revision = await this.revisions.createInitial(id, user.id, em);
      await this.spaces.setRevision(id, revision.id, em);
    });
    return this.access.resolve(user, id);
  }

  get(user: User, spaceId: string): Promise<SpaceAccess> {
    return this.access.require(user, spaceId, 'view');
  }

  async update(user: User, spaceId: string, dto: UpdateSpaceDto): Promise<SpaceAccess> {
    await this.access.require(user, spaceId, 'admin');
    await this.dataSource.transaction(async (em) => {
      // Locked, so a concurrent move cannot take the space out of its collection between the check and the write.
      const space = (await this.spaces.findForUpdate(spaceId, em)) as Space;
      if (dto.visibility === 'in-collection' && space.parentId === null) {
        throw new BadRequestException('visibility: in-collection is only for a space inside a collection');
      }
      const changes: Partial<Space> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.emoji !== undefined) changes.emoji = dto.emoji ?? '';
      if (dto.editMode !== undefined) changes.editMode = dto.editMode;
      if (dto.defaultLevel !== undefined) changes.defaultLevel = dto.defaultLevel;
      if (dto.visibility !== undefined) changes.visibility = dto.visibility;
      await this.spaces.update(spaceId, changes, em);
    });
    return this.access.resolve(user, spaceId);
  }

  /** Soft delete: hidden from lists and 404 everywhere but restore, until the purge removes it. */
  async delete(user: User, spaceId: string): Promise<void> {
    await this.access.require(user, spaceId, 'admin');
    if (!(await this.spaces.markDeleted(spaceId, this.clock.now()))) throw new NotFoundException(`Space ${spaceId} not found`);
  }

  /**
   * Brings a deleted space back within the retention period. The row stays locked until commit:
   * the purge skips locked rows, and a restore waiting behind a purge finds the space gone (404).
   */
  async restore(user: User, spaceId: string): Promise<SpaceAccess> {
    await this.dataSource.transaction(async (em) => {
      const space = await this.spaces.findForUpdate(spaceId, em);
      if (!space) throw new NotFoundException(`Space ${spaceId} not found`);
      const { permissions } = await this.access.resolve(user, spaceId, { includeDeleted: true, manager: em });
      if (space.deletedAt !== null && !this.retention.isRestorable(space.deletedAt)) {
        throw new NotFoundException(`Space ${spaceId} not found: it was deleted more than the retention period ago`);
      }
      if (!permissions.admin) throw new ForbiddenException(`You do not have the admin permission on space ${spaceId}`);
      if (space.deletedAt === null) throw new ConflictException(`Space ${spaceId} is not deleted`);
      await this.spaces.update(spaceId, { deletedAt: null }, em);
    });
    return this.access.resolve(user, spaceId);
  }

  /** A copy next to the source: same settings, a copy of its active revision, title marked as a copy. */
  async duplicate(user: User, spaceId: string): Promise<SpaceAccess> {
    const { space: source, organizationRole } = await this.access.require(user, spaceId, 'view');
    await this.collectionAccess.requireCreateIn(user, source.organizationId, organizationRole, source.parentId);
    const id = newId();
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(source.organizationId, em);
      const position = await this.tree.after('space', source.id, id, em);
      await this.spaces.insert(
        {
          id,
          organizationId: source.organizationId,
          parentId: source.parentId,
          title: copyTitle(source.title),
          emoji: source.emoji,
          visibility: source.visibility,
          editMode: source.editMode,
          defaultLevel: source.defaultLevel,
          createdBy: user.id,
          position,
        },
        em,
      );
      const revision = await this.revisions.copyToSpace(source.revisionId, id, user.id, em);
      await this.spaces.setRevision(id, revision.id, em);
    });
    return this.access.resolve(user, id);
  }

  async move(user: User, spaceId: string, dto: MoveDto): Promise<SpaceAccess> {
    if (dto.parent === undefined && dto.position === undefined) throw new BadRequestException('parent: give parent, position or both');
    const { space, organizationRole } = await this.access.require(user, spaceId, 'admin');
    const parentId = dto.parent === undefined ? space.parentId : dto.parent;
    if (parentId !== space.parentId) await this.collectionAccess.requireCreateIn(user, space.organizationId, organizationRole, parentId);
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(space.organizationId, em);
      const current = (await this.spaces.findForUpdate(spaceId, em)) as Space;
      const position = await this.tree.placeForMove({ kind: 'space', ...current }, parentId, dto.position, em);
      await this.spaces.update(spaceId, { parentId, position, visibility: visibilityIn(current.visibility, parentId) }, em);
    });
    return this.access.resolve(user, spaceId);
  }

  /** Moves the space to another organization (optionally into one of its collections); grants are dropped. */
  async transfer(user: User, spaceId: string, dto: TransferSpaceDto): Promise<SpaceAccess> {
    const { space, organizationRole } = await this.access.require(user, spaceId, 'view');
    await this.transfers.requireTransfer(user, { organizationId: space.organizationId, organizationRole }, dto.organization);
    const parentId = dto.collection ?? null;
    // The caller administers the target, so only the collection's existence there is in question.
    if (parentId !== null) await this.collectionAccess.requireCreateIn(user, dto.organization, 'admin', parentId);
    await this.dataSource.transaction(async (em) => {
      await this.tree.lockAll([space.organizationId, dto.organization], em);
      const current = (await this.spaces.findForUpdate(spaceId, em)) as Space;
      const position = await this.tree.end(dto.organization, em);
      await this.spaces.update(spaceId, { organizationId: dto.organization, parentId, position, visibility: visibilityIn(current.visibility, parentId) }, em);
      await this.spaces.dropGrants(spaceId, em);
    });
    return this.access.resolve(user, spaceId);
  }

  async listInOrganization(user: User, membership: Membership, query: ListQueryDto): Promise<Page<SpaceWithPermissions>> {
    const page = await this.spaces.listInOrganization(membership.organizationId, { userId: user.id, role: membership.role }, query);
    return this.withPermissions(user, page);
  }

  async listInCollection(user: User, collectionId: string, query: ListQueryDto): Promise<Page<SpaceWithPermissions>> {
    const { collection, organizationRole } = await this.collectionAccess.require(user, collectionId, 'view');
    const viewer = { organizationId: collection.organizationId, userId: user.id, role: organizationRole };
    return this.withPermissions(user, await this.spaces.listInCollection(collectionId, viewer, query));
  }

  private async withPermissions(user: User, page: Page<Space>): Promise<Page<SpaceWithPermissions>> {
    const permissions = await this.access.permissionsFor(user, page.items);
    return { ...page, items: page.items.map((space) => ({ space, permissions: permissions.get(space.id) as SpacePermissionsJson })) };
  }
}
