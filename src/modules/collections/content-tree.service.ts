import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { ContentTreeRepository, TreeItem, TreeItemKind } from './content-tree.repository';
import { ContentPositionDto } from './dto/move.dto';
import { collectionError } from './collection.errors';

/**
 * Where a space or collection goes when it is created, moved or duplicated. Callers hold the
 * organization's tree lock (`lock`) for the whole transaction.
 */
@Injectable()
export class ContentTreeService {
  constructor(
    private readonly tree: ContentTreeRepository,
    private readonly spaceWrites: SpaceUnitOfWork,
  ) {}

  lock(organizationId: string, manager: EntityManager): Promise<void> {
    return this.tree.lock(organizationId, manager);
  }

  /** Locks several organizations' trees in a fixed order, so two transfers in opposite directions cannot deadlock. */
  async lockAll(organizationIds: string[], manager: EntityManager): Promise<void> {
    for (const id of [...new Set(organizationIds)].sort()) await this.tree.lock(id, manager);
  }

  /** The position of a new item: after everything else in the organization. */
  end(organizationId: string, manager: EntityManager): Promise<number> {
    return this.tree.end(organizationId, manager);
  }

  /** The position right after `item` (a duplicate lands next to its source). */
  async after(kind: TreeItemKind, id: string, newId: string, manager: EntityManager): Promise<number> {
    const item = (await this.tree.find(kind, id, manager)) as TreeItem;
    return this.nextTo(item, 'after', newId, manager);
  }

  /**
   * The position for `movingId` right before or after `anchor`, renumbering the organization's items
   * (collections in the tree, spaces through their unit of work) when the neighbours leave no room.
   */
  private async nextTo(anchor: TreeItem, side: 'before' | 'after', movingId: string, manager: EntityManager): Promise<number> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const position = await this.tree.nextTo(anchor, side, movingId, manager);
      if (position !== null) return position;
      await this.spaceWrites.relocate(await this.tree.renumber(anchor.organizationId, manager), null, manager);
    }
    throw new Error(`Could not place ${movingId} next to ${anchor.id} after renumbering`);
  }

  /**
   * The position of `moving` once it sits in `parentId`: next to the pointed sibling when a
   * position is given, at the end when it changes parent, where it was otherwise.
   */
  async placeForMove(
    moving: { kind: TreeItemKind; id: string; organizationId: string; parentId: string | null; position: number },
    parentId: string | null,
    position: ContentPositionDto | undefined,
    manager: EntityManager,
  ): Promise<number> {
    if (position) {
      const side = pointedSide(position);
      const pointer = position[side] as NonNullable<ContentPositionDto['before']>;
      const anchorId = (pointer.type === 'space' ? pointer.space : pointer.collection) as string;
      const anchor = await this.tree.find(pointer.type, anchorId, manager);
      const field = `position.${side}`;
      if (anchor?.id === moving.id) throw collectionError('collection.position_self', `${field}: cannot place an item next to itself`);
      if (!anchor || anchor.organizationId !== moving.organizationId || anchor.deletedAt !== null || anchor.parentId !== parentId) {
        throw collectionError(
          'collection.position_not_beside',
          `${field}: ${pointer.type} ${anchorId} is not beside the destination (${parentId ? `collection ${parentId}` : 'top level'})`,
        );
      }
      return this.nextTo(anchor, side, moving.id, manager);
    }
    if (parentId !== moving.parentId) return this.tree.end(moving.organizationId, manager);
    return moving.position;
  }
}

function pointedSide(position: ContentPositionDto): 'before' | 'after' {
  if (position.before && position.after) throw collectionError('collection.position_ambiguous', 'position: give either before or after, not both');
  if (position.before) return 'before';
  if (position.after) return 'after';
  throw collectionError('collection.position_missing', 'position: give before or after');
}
