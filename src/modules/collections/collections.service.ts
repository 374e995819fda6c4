import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { newId } from '../../common/ids';
import { Page } from '../../common/pagination/paginate';
import { CollectionAccess, CollectionAccessService } from '../access/collection-access.service';
import type { CollectionPermissions } from '../access/access.policy';
import { TransferAccessService } from '../access/transfer-access.service';
import { Membership } from '../organizations/membership.entity';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import { Collection } from '../space-model/collection.entity';
import { CollectionsRepository } from './collections.repository';
import { ContentTreeService } from './content-tree.service';
import { CreateCollectionDto, ListCollectionsQueryDto, UpdateCollectionDto } from './dto/collection.dto';
import { MoveDto, TransferDto } from './dto/move.dto';
import { collectionError } from './collection.errors';

export interface CollectionWithPermissions {
  collection: Collection;
  permissions: CollectionPermissions;
}

@Injectable()
export class CollectionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly collections: CollectionsRepository,
    private readonly tree: ContentTreeService,
    private readonly access: CollectionAccessService,
    private readonly transfers: TransferAccessService,
    private readonly spaceWrites: SpaceUnitOfWork,
  ) {}

  async create(user: User, membership: Membership, dto: CreateCollectionDto): Promise<CollectionAccess> {
    const { organizationId } = membership;
    await this.access.requireCreateIn(user, organizationId, membership.role, dto.parent ?? null);
    const id = newId();
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(organizationId, em);
      const position = await this.tree.end(organizationId, em);
      await this.collections.insert({ id, organizationId, parentId: dto.parent ?? null, title: dto.title ?? '', position }, em);
    });
    return this.access.resolve(user, id);
  }

  /** Routes declare `@CollectionAction('admin')`: the caller's access arrives checked. */
  async update(user: User, { collection }: CollectionAccess, dto: UpdateCollectionDto): Promise<CollectionAccess> {
    const collectionId = collection.id;
    const changes: Partial<Collection> = {};
    if (dto.title !== undefined) changes.title = dto.title;
    if (dto.description !== undefined) changes.description = dto.description;
    if (dto.defaultLevel !== undefined) changes.defaultLevel = dto.defaultLevel;
    await this.collections.update(collectionId, changes);
    return this.access.resolve(user, collectionId);
  }

  /** Refused (409) while the collection holds spaces or collections: deleting content takes an explicit step per space. */
  async delete({ collection }: CollectionAccess): Promise<void> {
    const collectionId = collection.id;
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(collection.organizationId, em);
      const children = await this.collections.countChildren(collectionId, em);
      if (children.spaces > 0 || children.collections > 0) {
        throw collectionError(
          'collection.not_empty',
          `Collection ${collectionId} still holds ${children.spaces} space(s) and ${children.collections} collection(s): move or delete them first`,
        );
      }
      // Deleted spaces still inside (waiting for restore or purge) go to the top level, where a restore can show them.
      await this.spaceWrites.detachDeletedFrom(collectionId, em);
      await this.collections.delete(collectionId, em);
    });
  }

  async move(user: User, { collection, organizationRole }: CollectionAccess, dto: MoveDto): Promise<CollectionAccess> {
    if (dto.parent === undefined && dto.position === undefined) throw collectionError('collection.move_empty', 'parent: give parent, position or both');
    const collectionId = collection.id;
    const parentId = dto.parent === undefined ? collection.parentId : dto.parent;
    if (parentId !== collection.parentId) await this.access.requireCreateIn(user, collection.organizationId, organizationRole, parentId);
    await this.dataSource.transaction(async (em) => {
      await this.tree.lock(collection.organizationId, em);
      // Checked under the tree lock, so two concurrent moves cannot build a cycle between them.
      if (parentId !== null && (await this.collections.isWithin(parentId, collectionId, em))) {
        throw collectionError(
          'collection.cycle',
          `parent: collection ${parentId} is ${parentId === collectionId ? 'the collection itself' : 'inside the collection'}`,
        );
      }
      const current = (await this.collections.findById(collectionId, em)) as Collection;
      const position = await this.tree.placeForMove({ kind: 'collection', ...current }, parentId, dto.position, em);
      await this.collections.update(collectionId, { parentId, position }, em);
    });
    return this.access.resolve(user, collectionId);
  }

  /** Moves the collection and everything in it to the top level of another organization; grants are dropped. */
  async transfer(user: User, { collection, organizationRole }: CollectionAccess, dto: TransferDto): Promise<CollectionAccess> {
    const collectionId = collection.id;
    await this.transfers.requireTransfer(user, { organizationId: collection.organizationId, organizationRole }, dto.organization);
    await this.dataSource.transaction(async (em) => {
      await this.tree.lockAll([collection.organizationId, dto.organization], em);
      const moved = await this.collections.transferSubtree(collectionId, dto.organization, em);
      await this.spaceWrites.relocate(moved.spaces, dto.organization, em);
      await this.transfers.dropGrantsOfTransferred({ spaceIds: moved.spaces.map((space) => space.id), collectionIds: moved.collectionIds }, em);
    });
    return this.access.resolve(user, collectionId);
  }

  async listInOrganization(user: User, membership: Membership, query: ListCollectionsQueryDto): Promise<Page<CollectionWithPermissions>> {
    const page = await this.collections.listInOrganization(membership.organizationId, query.nested, { userId: user.id, role: membership.role }, query);
    const permissions = await this.access.permissionsFor(user, page.items);
    return { ...page, items: page.items.map((collection) => ({ collection, permissions: permissions.get(collection.id) as CollectionPermissions })) };
  }
}
