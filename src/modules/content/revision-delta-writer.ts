import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { contentError } from './content.errors';
import { collectLinks } from './links/link-classifier';
import { RevisionFile } from './revision-file.entity';
import { RevisionPage } from './revision-page.entity';
import { Revision, RevisionType } from './revision.entity';
import { DraftFile, DraftPage, RevisionWriter } from './revision-writer';

const CHUNK = 500;

/** A new revision described by what differs from `base`. */
export interface RevisionDelta {
  spaceId: string;
  /** The revision whose rows are carried over (the space's active revision for a merge). */
  base: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  /** Pages added or changed, whole rows; `markdown` set where the body is new (else `documentId` is kept). */
  pages: DraftPage[];
  /** Pages of `base` that are not in the new revision. */
  removed: string[];
  /** Files added. */
  files: DraftFile[];
}

export interface DeltaWritten {
  revision: Revision;
  /** Pages whose rows differ from the base's, and pages gone: what the search index must follow. */
  delta: { changed: string[]; removed: string[] };
}

interface BaseRow {
  page_id: string;
  parent_id: string | null;
  slug: string | null;
  path: string | null;
  document_id?: string | null;
}

/**
 * Writes a revision as a delta of another one, so its cost follows the size of the change, not of
 * the space: the base's rows are copied in SQL (INSERT … SELECT), then the changed pages are
 * written, their links classified and the base's links carried over with their statuses updated
 * where the change affects them. It answers null, having written nothing, when the change moves or
 * renames a page that was in the base (paths below it, and relative links anywhere, would change):
 * the caller then writes the whole revision with `RevisionWriter`.
 */
@Injectable()
export class RevisionDeltaWriter {
  constructor(private readonly writer: RevisionWriter) {}

  async write(delta: RevisionDelta, em: EntityManager): Promise<DeltaWritten | null> {
    const changedIds = delta.pages.map((page) => page.pageId);
    const removed = new Set(delta.removed);
    const before: BaseRow[] = changedIds.length
      ? await em.query(`SELECT page_id, parent_id, slug, path, document_id FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [
          delta.base,
          changedIds,
        ])
      : [];
    const beforeById = new Map(before.map((row) => [row.page_id, row]));
    for (const page of delta.pages) {
      const old = beforeById.get(page.pageId);
      if (old && (old.parent_id !== page.parentId || old.slug !== page.slug)) return null;
    }
    const inserted = delta.pages.filter((page) => !beforeById.has(page.pageId));
    const paths = await this.paths(delta, beforeById, em);

    await this.writer.storeContent(delta.pages, delta.files, em);
    // Pages whose body differs from the base's: their links are classified again.
    const newBodies = delta.pages
      .filter((page) => beforeById.get(page.pageId)?.document_id !== page.documentId || !beforeById.has(page.pageId))
      .map((page) => page.pageId);
    const revision = em.create(Revision, {
      id: newId(),
      spaceId: delta.spaceId,
      parents: delta.parents,
      type: delta.type,
      createdBy: delta.createdBy,
    });
    await em.insert(Revision, revision);
    await em.query(`UPDATE revisions r SET variables = b.variables, git = b.git FROM revisions b WHERE r.id = $1 AND b.id = $2`, [revision.id, delta.base]);
    const skip = [...changedIds, ...removed];
    const params = [revision.id, delta.base];
    await em.query(
      `INSERT INTO revision_pages (revision_id, page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
                                   hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at)
       SELECT $1, page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
              hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at
       FROM revision_pages WHERE revision_id = $2 AND page_id <> ALL($3::text[])`,
      [...params, skip],
    );
    const now = new Date();
    const rows = delta.pages.map(({ markdown: _markdown, ...page }) => ({
      ...page,
      documentId: page.documentId ?? null,
      revisionId: revision.id,
      path: paths.get(page.pageId) ?? null,
      createdAt: page.createdAt ?? now,
      updatedAt: page.updatedAt ?? now,
    }));
    for (let i = 0; i < rows.length; i += CHUNK) await em.insert(RevisionPage, rows.slice(i, i + CHUNK));
    await em.query(
      `INSERT INTO revision_files (revision_id, file_id, name, content_type, size, width, height, blob_id, created_at)
       SELECT $1, file_id, name, content_type, size, width, height, blob_id, created_at FROM revision_files WHERE revision_id = $2`,
      params,
    );
    const fileRows = delta.files.map(({ data: _data, ...file }) => ({
      ...file,
      revisionId: revision.id,
      blobId: file.blobId as string,
      createdAt: file.createdAt ?? now,
    }));
    for (let i = 0; i < fileRows.length; i += CHUNK) await em.insert(RevisionFile, fileRows.slice(i, i + CHUNK));
    await em.query(
      `INSERT INTO revision_reusable_contents (revision_id, reusable_content_id, title, document_id)
       SELECT $1, reusable_content_id, title, document_id FROM revision_reusable_contents WHERE revision_id = $2`,
      params,
    );
    await this.links(revision.id, delta, inserted, paths, newBodies, em);
    return { revision: await em.findOneByOrFail(Revision, { id: revision.id }), delta: { changed: changedIds, removed: [...removed] } };
  }

  /** Paths of the changed pages (their parents' paths from the base, or from pages inserted with them); sibling slugs checked. */
  private async paths(delta: RevisionDelta, beforeById: Map<string, BaseRow>, em: EntityManager): Promise<Map<string, string | null>> {
    const changed = new Map(delta.pages.map((page) => [page.pageId, page]));
    const removed = new Set(delta.removed);
    const parentIds = [...new Set(delta.pages.map((page) => page.parentId).filter((id): id is string => id !== null && !changed.has(id)))];
    const parents: BaseRow[] = parentIds.length
      ? await em.query(`SELECT page_id, parent_id, slug, path FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [
          delta.base,
          parentIds,
        ])
      : [];
    const parentPath = new Map(parents.filter((row) => !removed.has(row.page_id)).map((row) => [row.page_id, row.path]));
    const paths = new Map<string, string | null>();
    const resolve = (page: DraftPage, depth: number): string | null => {
      if (paths.has(page.pageId)) return paths.get(page.pageId) as string | null;
      if (depth > 1000) throw contentError('content.invalid_pages', `pages: the page tree has a cycle at ${page.pageId}`);
      const old = beforeById.get(page.pageId);
      let path: string | null;
      if (old) path = old.path;
      else {
        let above: string | null = null;
        if (page.parentId !== null) {
          const parent = changed.get(page.parentId);
          if (parent) above = resolve(parent, depth + 1);
          else if (parentPath.has(page.parentId)) above = parentPath.get(page.parentId) ?? null;
          else throw contentError('content.invalid_pages', `pages: page ${page.pageId} has an unknown parent ${page.parentId}`);
        }
        path = page.slug === null ? null : above ? `${above}/${page.slug}` : page.slug;
      }
      paths.set(page.pageId, path);
      return path;
    };
    for (const page of delta.pages) resolve(page, 0);

    // Slugs stay unique among siblings: the changed pages against each other and against the base's pages they join.
    const parentsOfNew = [...new Set(delta.pages.filter((page) => !beforeById.has(page.pageId)).map((page) => page.parentId))];
    if (parentsOfNew.length > 0) {
      const siblings: BaseRow[] = await em.query(
        `SELECT page_id, parent_id, slug, path FROM revision_pages
          WHERE revision_id = $1 AND slug IS NOT NULL AND (parent_id = ANY($2::text[]) OR (parent_id IS NULL AND $3))`,
        [delta.base, parentsOfNew.filter((id) => id !== null), parentsOfNew.includes(null)],
      );
      const taken = new Map<string, string>();
      for (const row of siblings) if (!changed.has(row.page_id) && !removed.has(row.page_id)) taken.set(`${row.parent_id ?? ''}\u0000${row.slug}`, row.page_id);
      for (const page of delta.pages) {
        if (page.slug === null) continue;
        const key = `${page.parentId ?? ''}\u0000${page.slug}`;
        const other = taken.get(key);
        if (other && other !== page.pageId) throw contentError('content.duplicate_slug', `slug: page ${page.pageId} repeats the slug of its sibling ${other}`);
        taken.set(key, page.pageId);
      }
    }
    return paths;
  }

  /**
   * The base's link rows without the contributions of pages whose body changed or that are gone,
   * the links of the changed bodies (and of pages whose broken path links an inserted page now
   * resolves) classified against the new tree, and statuses updated for targets that appeared or went.
   */
  private async links(
    revisionId: string,
    delta: RevisionDelta,
    inserted: DraftPage[],
    paths: Map<string, string | null>,
    newBodies: string[],
    em: EntityManager,
  ): Promise<void> {
    const bodies = new Map<string, string>();
    for (const page of delta.pages) if (page.markdown !== undefined) bodies.set(page.pageId, page.markdown);
    const newPaths = inserted.map((page) => paths.get(page.pageId)).filter((path): path is string => !!path);
    const pathHits: { pages: string[] }[] = newPaths.length
      ? await em.query(`SELECT pages FROM revision_links WHERE revision_id = $1 AND target_key = ANY($2::text[])`, [
          delta.base,
          newPaths.map((path) => `path:${path}`),
        ])
      : [];
    const relink = new Set([...newBodies, ...pathHits.flatMap((row) => row.pages)]);
    const drop = [...relink, ...delta.removed];
    await em.query(
      `INSERT INTO revision_links (revision_id, target_key, status, target, pages)
       SELECT $1, l.target_key, l.status, l.target, kept.pages
         FROM revision_links l,
              LATERAL (SELECT ARRAY(SELECT p FROM unnest(l.pages) WITH ORDINALITY AS u (p, o) WHERE p <> ALL($3::text[]) ORDER BY o) AS pages) kept
        WHERE l.revision_id = $2 AND cardinality(kept.pages) > 0`,
      [revisionId, delta.base, drop],
    );
    // Targets that appeared or went: pages inserted, restored or removed, files added.
    const touchedKeys = [
      ...inserted.map((page) => `page:${page.pageId}`),
      ...delta.removed.map((id) => `page:${id}`),
      ...delta.files.map((file) => `file:${file.fileId}`),
    ];
    if (touchedKeys.length > 0) {
      await em.query(
        `UPDATE revision_links l SET status = CASE
            WHEN l.target->>'kind' = 'page' AND EXISTS (SELECT 1 FROM revision_pages p WHERE p.revision_id = $1 AND p.page_id = l.target->>'page') THEN 'in-app'
            WHEN l.target->>'kind' = 'file' AND EXISTS (SELECT 1 FROM revision_files f WHERE f.revision_id = $1 AND f.file_id = l.target->>'file') THEN 'in-app'
            ELSE 'broken' END
          WHERE l.revision_id = $1 AND l.target_key = ANY($2::text[])`,
        [revisionId, touchedKeys],
      );
    }
    if (relink.size === 0) return;
    const missing = [...relink].filter((id) => !bodies.has(id));
    if (missing.length > 0) {
      const rows: { page_id: string; markdown: string | null }[] = await em.query(
        `SELECT p.page_id, d.markdown FROM revision_pages p LEFT JOIN documents d ON d.id = p.document_id WHERE p.revision_id = $1 AND p.page_id = ANY($2::text[])`,
        [revisionId, missing],
      );
      for (const row of rows) bodies.set(row.page_id, row.markdown ?? '');
    }
    const tree: { page_id: string; path: string | null }[] = await em.query(`SELECT page_id, path FROM revision_pages WHERE revision_id = $1`, [revisionId]);
    const files: { file_id: string }[] = await em.query(`SELECT file_id FROM revision_files WHERE revision_id = $1`, [revisionId]);
    const pathOf = new Map(tree.map((row) => [row.page_id, row.path]));
    const context = {
      pageIds: new Set(tree.map((row) => row.page_id)),
      pagePaths: new Map(tree.filter((row) => row.path !== null).map((row) => [row.path as string, row.page_id])),
      fileIds: new Set(files.map((row) => row.file_id)),
    };
    const linked = collectLinks(
      [...relink].filter((id) => pathOf.has(id)).map((id) => ({ pageId: id, path: pathOf.get(id) ?? '', markdown: bodies.get(id) ?? '' })),
      context,
    );
    for (let i = 0; i < linked.length; i += CHUNK) {
      const part = linked.slice(i, i + CHUNK);
      await em.query(
        `INSERT INTO revision_links (revision_id, target_key, status, target, pages)
         SELECT $1, l.target_key, l.status, l.target, ARRAY(SELECT jsonb_array_elements_text(l.pages))
           FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::jsonb[]) AS l (target_key, status, target, pages)
         ON CONFLICT (revision_id, target_key) DO UPDATE SET pages = revision_links.pages || EXCLUDED.pages, status = EXCLUDED.status`,
        [
          revisionId,
          part.map((link) => link.key),
          part.map((link) => link.status),
          part.map((link) => JSON.stringify(link.target)),
          part.map((link) => JSON.stringify(link.pages)),
        ],
      );
    }
  }
}
