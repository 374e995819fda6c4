import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import type { GarbageCollected } from './content.read-model';
import { Revision } from './revision.entity';

/**
 * The advisory lock between document GC and writes that store their bodies before their revision's
 * transaction references them: such a write holds it shared from before its first body is stored
 * until its revision commits; `RevisionLifecycleService.collectGarbage` takes it exclusively.
 */
export const DOCUMENT_GC_LOCK = `hashtext('quire:document-gc')`;

/** The statements of `RevisionLifecycleService`: a space's first revision, a copy of one, and content GC. */
@Injectable()
export class RevisionLifecycleRepository {
  /** The empty first revision of a new space; the caller points the space at it in the same transaction. */
  async createInitial(spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    const revision = manager.create(Revision, { id: newId(), spaceId, parents: [], type: 'edits', createdBy: userId });
    await manager.insert(Revision, revision);
    return (await manager.findOneByOrFail(Revision, { id: revision.id })) as Revision;
  }

  /**
   * A revision of `spaceId` with the same content as `revisionId` (space duplication); the spaces'
   * unit of work makes it the new space's active revision (and indexes it for search). Revisions are immutable, so the copy shares every
   * body and every file's bytes with the source: only tree rows are copied, with the same page and
   * file ids (ids are unique within a revision, and links between them stay valid). The copy is
   * full (the source's rows resolved through its base, if it is a layer): a layer's base stays in its own space.
   */
  async copyToSpace(revisionId: string, spaceId: string, userId: string | null, manager: EntityManager): Promise<Revision> {
    const source = await manager.findOneByOrFail(Revision, { id: revisionId });
    const copy = manager.create(Revision, {
      id: newId(),
      spaceId,
      parents: [source.id],
      type: source.type,
      createdBy: userId,
      variables: source.variables,
      git: source.git,
    });
    await manager.insert(Revision, copy);
    const params = [copy.id, source.id];
    await manager.query(
      `INSERT INTO revision_page_rows (revision_id, page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
                                   hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at, tree_key)
       SELECT $1, page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
              hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at, tree_key
       FROM revision_pages WHERE revision_id = $2`,
      params,
    );
    await manager.query(
      `INSERT INTO revision_file_rows (revision_id, file_id, name, content_type, size, width, height, blob_id, created_at)
       SELECT $1, file_id, name, content_type, size, width, height, blob_id, created_at FROM revision_files WHERE revision_id = $2`,
      params,
    );
    await manager.query(
      `INSERT INTO revision_reusable_content_rows (revision_id, reusable_content_id, title, document_id)
       SELECT $1, reusable_content_id, title, document_id FROM revision_reusable_contents WHERE revision_id = $2`,
      params,
    );
    await manager.query(
      `INSERT INTO revision_link_rows (revision_id, target_key, status, target, pages)
       SELECT $1, target_key, status, target, pages FROM revision_links WHERE revision_id = $2`,
      params,
    );
    return (await manager.findOneByOrFail(Revision, { id: copy.id })) as Revision;
  }

  /**
   * Removes bodies and file bytes that no revision uses any more (after the spaces module purged
   * spaces, whose revisions cascade away). Rows a concurrent transaction is just starting to
   * reference are locked by its foreign-key check and skipped here, so a purge never blocks a
   * writer; they are collected on a later run if they stay unused. The stored rows are what keeps a
   * body: a layer reads the rest through its base, which cannot be deleted while the layer exists.
   * A large write stores its bodies before its transaction references them (RevisionWriter): it
   * holds `DOCUMENT_GC_LOCK` shared meanwhile, so this waits for such writes in flight to commit or
   * fail (a body they stored is then referenced, or garbage), and one starting now waits for this.
   */
  async collectGarbage(manager: EntityManager): Promise<GarbageCollected> {
    await manager.query(`SELECT pg_advisory_xact_lock(${DOCUMENT_GC_LOCK})`);
    // DELETE through TypeORM's query() answers [rows, affected count].
    const [, documents]: [unknown[], number] = await manager.query(
      `DELETE FROM documents WHERE id IN (
         SELECT d.id FROM documents d
         WHERE NOT EXISTS (SELECT 1 FROM revision_page_rows p WHERE p.document_id = d.id)
           AND NOT EXISTS (SELECT 1 FROM revision_reusable_content_rows r WHERE r.document_id = d.id)
         FOR UPDATE SKIP LOCKED)
       RETURNING id`,
    );
    const [, blobs]: [unknown[], number] = await manager.query(
      `DELETE FROM blobs WHERE id IN (
         SELECT b.id FROM blobs b
         WHERE NOT EXISTS (SELECT 1 FROM revision_file_rows f WHERE f.blob_id = b.id)
         FOR UPDATE SKIP LOCKED)
       RETURNING id`,
    );
    return { documents, blobs };
  }
}
