import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { Revision } from './revision.entity';

/**
 * How other modules create and copy a space's content, without knowing its model: the spaces
 * module calls these inside its own transactions. The content module owns what a revision holds.
 */
@Injectable()
export class RevisionLifecycleService {
  /** The empty first revision of a new space; the caller points the space at it in the same transaction. */
  async createInitial(spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    const revision = manager.create(Revision, { id: newId(), spaceId, parents: [], type: 'edits', createdBy: userId });
    await manager.insert(Revision, revision);
    return (await manager.findOneByOrFail(Revision, { id: revision.id })) as Revision;
  }

  /**
   * A revision of `spaceId` with the same content as `revisionId` (used by space duplication).
   * Revisions are immutable, so the copy shares everything it can with the source.
   */
  async copyToSpace(revisionId: string, spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    const source = await manager.findOneByOrFail(Revision, { id: revisionId });
    const copy = manager.create(Revision, { id: newId(), spaceId, parents: [source.id], type: source.type, createdBy: userId });
    await manager.insert(Revision, copy);
    return (await manager.findOneByOrFail(Revision, { id: copy.id })) as Revision;
  }
}
