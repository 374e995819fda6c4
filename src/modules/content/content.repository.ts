import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { Blob } from './blob.entity';
import { ContentDocument } from './document.entity';
import { RevisionFile } from './revision-file.entity';
import type { PageWithBody, TreeCursor, TreeRow } from './content.read-model';
import { RevisionPage } from './revision-page.entity';
import { RevisionReusableContent } from './revision-reusable-content.entity';
import { Revision } from './revision.entity';
import { hydrate } from '../../database/hydrate';
import { holdReadConnection, queryPrepared, type HeldReadConnection } from '../../database/prepared-query';

/** A streamed tree row with its stored key, from which the next batch starts. */
type KeyedTreeRow = TreeRow & { treeKey: string };

const FIND_REVISION_SQL = `SELECT * FROM revisions WHERE id = $1 AND space_id = $2`;
const REVISION_FILES_SQL = `SELECT * FROM revision_files WHERE revision_id = $1 ORDER BY file_id ASC`;
const PATHS_OF_SQL = `SELECT page_id, path FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`;
const REVISION_REUSABLE_CONTENTS_SQL = `SELECT * FROM revision_reusable_contents WHERE revision_id = $1 ORDER BY reusable_content_id ASC`;

/**
 * A page and all its descendants, with their bodies, in one statement: the walk down the tree
 * carries each row (the children read through LATERAL … OFFSET 0: `revision_pages` is a view over
 * layers, which the planner cannot probe by a join key, but into both of whose branches it pushes
 * `parent_id = sub.page_id` as an index condition), bodies joined by primary key; siblings in
 * position order, as `find(…, { order: { parentId, position } })` gave them.
 */
const subtreeSql = (column: 'page_id' | 'path') => `WITH RECURSIVE sub AS (
    SELECT p.*, true AS requested FROM revision_pages p WHERE p.revision_id = $1 AND p.${column} = $2
    UNION ALL
    SELECT c.*, false FROM sub, LATERAL (SELECT * FROM revision_pages WHERE revision_id = $1 AND parent_id = sub.page_id OFFSET 0) c
  )
  SELECT sub.*, d.markdown AS body_markdown FROM sub LEFT JOIN documents d ON d.id = sub.document_id
  ORDER BY sub.requested DESC, sub.parent_id ASC, sub.position ASC`;
const SUBTREE_BY_ID_SQL = subtreeSql('page_id');
const SUBTREE_BY_PATH_SQL = subtreeSql('path');

/** Reads of a revision's content: tree, bodies, files. */
@Injectable()
export class ContentRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findRevision(spaceId: string, revisionId: string, manager?: EntityManager): Promise<Revision | null> {
    if (manager) return manager.findOneBy(Revision, { id: revisionId, spaceId });
    // Behind every content read: prepared once per connection.
    const [row] = await queryPrepared<Record<string, unknown>>(this.dataSource, 'quire_find_revision', FIND_REVISION_SQL, [revisionId, spaceId]);
    return row ? hydrate(this.dataSource, Revision, row) : null;
  }

  /** Every page of the revision, siblings in position order. */
  async pages(revisionId: string, manager: EntityManager = this.dataSource.manager): Promise<PageWithBody[]> {
    const pages = await manager.find(RevisionPage, { where: { revisionId }, order: { parentId: 'ASC', position: 'ASC', pageId: 'ASC' } });
    return this.withBodies(pages, manager);
  }

  /** The tree rows of a revision, without bodies (what a new revision built on it carries over). */
  tree(revisionId: string, manager: EntityManager): Promise<RevisionPage[]> {
    return manager.find(RevisionPage, { where: { revisionId }, order: { parentId: 'ASC', position: 'ASC' } });
  }

  /**
   * The page and all its descendants (a recursive walk down the tree, not the whole revision). The
   * children are read through LATERAL … OFFSET 0: `revision_pages` is a view over layers, which the
   * planner cannot probe by a join key (it would hash the whole revision at each step), but into
   * both of whose branches it pushes `parent_id = sub.page_id` as an index condition.
   */
  async subtree(revisionId: string, where: { pageId: string } | { path: string }): Promise<PageWithBody[]> {
    const byId = 'pageId' in where;
    // One prepared statement: the walk carries the rows themselves, each with its body.
    const rows = await queryPrepared<Record<string, unknown> & { body_markdown: string | null }>(
      this.dataSource,
      byId ? 'quire_subtree_by_id' : 'quire_subtree_by_path',
      byId ? SUBTREE_BY_ID_SQL : SUBTREE_BY_PATH_SQL,
      [revisionId, byId ? where.pageId : where.path],
    );
    // The requested page first, its descendants after (the statement's order).
    return rows.map((row) => Object.assign(hydrate(this.dataSource, RevisionPage, row), { markdown: row.body_markdown }));
  }

  /**
   * One page of a revision with its body, read by key (no tree walk: the cost does not grow with the
   * revision). With `document`, its stored document instead of its markdown (the markdown only when
   * no document is stored yet, for the caller to parse).
   */
  async onePage(revisionId: string, pageId: string, options: { document?: boolean } = {}): Promise<PageWithBody | null> {
    const page = await this.dataSource.manager.findOne(RevisionPage, { where: { revisionId, pageId } });
    if (!page) return null;
    if (!options.document) return (await this.withBodies([page], this.dataSource.manager))[0];
    const stored = page.documentId ? await this.storedDocument(page.documentId) : undefined;
    return Object.assign(page, { documentJson: stored?.document ?? null, markdown: stored?.markdown ?? null });
  }

  /** Whether a page or reusable content of some revision of the space uses the body `documentId` (each probe by index). */
  async spaceUsesDocument(spaceId: string, documentId: string): Promise<boolean> {
    const [row]: { used: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM revision_page_rows r JOIN revisions v ON v.id = r.revision_id WHERE r.document_id = $2 AND v.space_id = $1)
           OR EXISTS (SELECT 1 FROM revision_reusable_content_rows r JOIN revisions v ON v.id = r.revision_id WHERE r.document_id = $2 AND v.space_id = $1)
         AS used`,
      [spaceId, documentId],
    );
    return row.used;
  }

  /**
   * A body's stored public document as JSON text (never parsed here: most reads send it as it is), or
   * its markdown when it has none stored yet (a body stored before documents were, until
   * `FillDocumentsJob` fills it); undefined when no such body exists.
   */
  async storedDocument(documentId: string): Promise<{ document: string | null; markdown: string | null } | undefined> {
    const rows: { document: string | null; markdown: string | null }[] = await this.dataSource.query(
      `SELECT document::text AS document, CASE WHEN document IS NULL THEN markdown END AS markdown FROM documents WHERE id = $1`,
      [documentId],
    );
    return rows[0];
  }

  /** Up to `limit` bodies stored without their document, in id order after `after` (`FillDocumentsJob`). */
  bodiesWithoutDocument(after: string, limit: number): Promise<{ id: string; markdown: string }[]> {
    return this.dataSource.query(`SELECT id, markdown FROM documents WHERE document IS NULL AND id > $1 ORDER BY id LIMIT $2`, [after, limit]);
  }

  /** Stores the documents of bodies that still have none (JSON text each); how many were filled. */
  async fillDocuments(ids: string[], documents: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [, filled]: [unknown[], number] = await this.dataSource.query(
      `UPDATE documents d SET document = v.document::jsonb
       FROM unnest($1::text[], $2::text[]) AS v (id, document)
       WHERE d.id = v.id AND d.document IS NULL`,
      [ids, documents],
    );
    return filled;
  }

  /** Page id → path, for turning stable page refs into relative links: every page of the revision. */
  async pagePaths(revisionId: string): Promise<Map<string, string | null>> {
    const rows = await this.dataSource.manager.find(RevisionPage, { where: { revisionId }, select: { pageId: true, path: true } });
    return new Map(rows.map((row) => [row.pageId, row.path]));
  }

  /**
   * The pages that can differ between `revisionIds` when they are one full revision and layers over
   * it (a layer stores exactly the rows that differ from its base, tombstones included): the layers'
   * own page ids, read by key, whatever the size of the space. Null when they do not share one full
   * base (the caller then compares them whole).
   */
  async pagesDifferingWithinBase(revisionIds: string[], manager: EntityManager = this.dataSource.manager): Promise<string[] | null> {
    const rows: { id: string; base_id: string | null }[] = await manager.query(`SELECT id, base_id FROM revisions WHERE id = ANY($1::text[])`, [revisionIds]);
    if (rows.length !== new Set(revisionIds).size || new Set(rows.map((row) => row.base_id ?? row.id)).size !== 1) return null;
    const layers = rows.filter((row) => row.base_id !== null).map((row) => row.id);
    if (layers.length === 0) return [];
    const pages: { page_id: string }[] = await manager.query(`SELECT DISTINCT page_id FROM revision_page_rows WHERE revision_id = ANY($1::text[])`, [layers]);
    return pages.map((row) => row.page_id);
  }

  /** Page id → path of only `pageIds` (read by primary key): the pages some bodies link to. */
  async pathsOf(revisionId: string, pageIds: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, string | null>> {
    if (pageIds.length === 0) return new Map();
    const rows: { page_id: string; path: string | null }[] = await manager.query(PATHS_OF_SQL, [revisionId, pageIds]);
    return new Map(rows.map((row) => [row.page_id, row.path]));
  }

  /**
   * The revision's tree in the order it is shown (depth first, siblings by position), each page
   * with its depth and body, `batchSize` rows at a time: memory stays flat however many pages the
   * revision has. Pages that are not shown (groups below the top level, and what is under them or
   * under a link) are left out, as the presenter leaves them out.
   *
   * PostgreSQL writes the parts of each page's JSON that are short text and flags (`head`,
   * `slugPath`, `flags`): its escaping of a string is JSON.stringify's (the same characters
   * escaped, `\u00xx` in lower case; stored text has no lone surrogates). Bodies come as text:
   * JSON.stringify escapes them faster than the backend, the slower side of the stream.
   *
   * Rows come in the order of their stored key (`tree_key`, `tree/tree-keys.ts`), each batch from
   * after the last key of the one before: one index range scan of the revision's rows, or for a layer
   * a merge of two (its own live rows, its base's it does not override), each page's body looked up
   * by key as it goes: no walk, no sort, and the first rows come at once. A revision's rows never
   * change once it is written, so the batches need no shared snapshot: each is one prepared
   * statement (a tree of fewer than `batchSize` shown pages is one statement in all), on one
   * connection held for the stream (a replica that had the revision keeps serving it). The next batch
   * is fetched while the caller works on the current one, so at most two batches are held.
   */
  streamTree(revision: Pick<Revision, 'id' | 'baseId'>, batchSize = 500): TreeCursor {
    const limit = Math.max(1, Math.floor(batchSize));
    let held: HeldReadConnection | undefined;
    return {
      batches: this.treeBatches(revision, limit, (connection) => (held = connection)),
      // Paths asked for while the tree is read come from the stream's own connection: a second
      // connection per stream could wait forever on a pool that the streams themselves hold.
      pathsOf: async (pageIds) => {
        if (!held || pageIds.length === 0) return this.pathsOf(revision.id, pageIds);
        const rows = await held.query<{ page_id: string; path: string | null }>('quire_paths_of', PATHS_OF_SQL, [revision.id, pageIds]);
        return new Map(rows.map((row) => [row.page_id, row.path]));
      },
    };
  }

  private async *treeBatches(
    revision: Pick<Revision, 'id' | 'baseId'>,
    limit: number,
    holding: (connection: HeldReadConnection | undefined) => void,
  ): AsyncGenerator<TreeRow[]> {
    const connection = await holdReadConnection(this.dataSource);
    holding(connection);
    const layer = revision.baseId !== null;
    const name = `quire_tree_${layer ? 'layer' : 'full'}_${limit}`;
    const text = treeQuery(layer, limit);
    const batchAfter = (key: string) => {
      const rows = connection.query<KeyedTreeRow>(name, text, layer ? [revision.id, key, revision.baseId] : [revision.id, key]);
      // Awaited below or in `finally`; never an unhandled rejection when the caller stops early.
      rows.catch(() => undefined);
      return rows;
    };
    let pending: Promise<KeyedTreeRow[]> | undefined = batchAfter('');
    try {
      while (pending) {
        const rows: KeyedTreeRow[] = await pending;
        // A full batch may have more after it: asked for now, read while the caller works on this one.
        pending = rows.length === limit ? batchAfter(rows[rows.length - 1].treeKey) : undefined;
        if (rows.length > 0) yield rows;
      }
    } finally {
      holding(undefined);
      if (pending) await pending.catch(() => undefined);
      connection.release();
    }
  }

  async files(revisionId: string, manager?: EntityManager): Promise<RevisionFile[]> {
    if (manager) return manager.find(RevisionFile, { where: { revisionId }, order: { fileId: 'ASC' } });
    // Part of every revision read: prepared once per connection.
    const rows = await queryPrepared<Record<string, unknown>>(this.dataSource, 'quire_revision_files', REVISION_FILES_SQL, [revisionId]);
    return rows.map((row) => hydrate(this.dataSource, RevisionFile, row));
  }

  /** Files in id order (ids are time-ordered, so oldest first). */
  listFiles(revisionId: string, query: ListQueryDto): Promise<Page<RevisionFile>> {
    const qb = this.dataSource.manager.createQueryBuilder(RevisionFile, 'f').where('f.revision_id = :revisionId', { revisionId });
    return paginate<RevisionFile>(qb, query, { list: 'files:id', columns: ['f.file_id'], direction: 'ASC', keyOf: (file) => [file.fileId] });
  }

  findFile(revisionId: string, fileId: string): Promise<RevisionFile | null> {
    return this.dataSource.manager.findOneBy(RevisionFile, { revisionId, fileId });
  }

  async blobData(blobId: string): Promise<Buffer | null> {
    const blob = await this.dataSource.manager.createQueryBuilder(Blob, 'b').addSelect('b.data').where('b.id = :blobId', { blobId }).getOne();
    return blob?.data ?? null;
  }

  async reusableContents(revisionId: string, manager?: EntityManager): Promise<RevisionReusableContent[]> {
    if (manager) return manager.find(RevisionReusableContent, { where: { revisionId }, order: { reusableContentId: 'ASC' } });
    const rows = await queryPrepared<Record<string, unknown>>(this.dataSource, 'quire_revision_reusable_contents', REVISION_REUSABLE_CONTENTS_SQL, [
      revisionId,
    ]);
    return rows.map((row) => hydrate(this.dataSource, RevisionReusableContent, row));
  }

  /** One reusable content of a revision, or null. */
  findReusableContent(revisionId: string, reusableContentId: string): Promise<RevisionReusableContent | null> {
    return this.dataSource.manager.findOneBy(RevisionReusableContent, { revisionId, reusableContentId });
  }

  /** Reusable contents of a revision by id, each with its body (null when it is empty). */
  async reusableContentBodies(revisionId: string, ids: string[]): Promise<(RevisionReusableContent & { markdown: string | null })[]> {
    if (ids.length === 0) return [];
    const contents = await this.dataSource.manager.find(RevisionReusableContent, { where: { revisionId, reusableContentId: In(ids) } });
    const bodies = await this.bodies(contents.map((content) => content.documentId).filter((id): id is string => id !== null));
    return contents.map((content) => Object.assign(content, { markdown: content.documentId ? (bodies.get(content.documentId) ?? null) : null }));
  }

  /** Pages with their bodies (`markdown`, null for a page without one). */
  async withBodies(pages: RevisionPage[], manager: EntityManager = this.dataSource.manager): Promise<PageWithBody[]> {
    const bodies = await this.bodies(
      pages.map((page) => page.documentId).filter((id): id is string => id !== null),
      manager,
    );
    return pages.map((page) => Object.assign(page, { markdown: page.documentId ? (bodies.get(page.documentId) ?? null) : null }));
  }

  /**
   * The one reader of bodies by id: the markdown of each distinct stored body among `documentIds`, by id
   * (5,000 ids a statement). Pages, reusable contents, links and change requests read bodies through it.
   */
  async bodies(documentIds: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, string>> {
    const ids = [...new Set(documentIds)];
    const bodies = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 5000) {
      const documents = await manager.find(ContentDocument, { where: { id: In(ids.slice(i, i + 5000)) }, select: { id: true, markdown: true } });
      for (const document of documents) bodies.set(document.id, document.markdown);
    }
    return bodies;
  }
}

/** What the stream reads of a page: its JSON's short text written here, the rest raw (see `TreeRow`). */
const TREE_ROW = `length(p.tree_key) - length(replace(p.tree_key, chr(1), '')) - 1 AS depth, p.tree_key AS "treeKey",
  p.kind, p.page_id AS "pageId", p.path,
  '{"id":' || to_json(p.page_id)::text || ',"title":' || to_json(p.title)::text
    || CASE WHEN p.emoji <> '' THEN ',"emoji":' || to_json(p.emoji)::text ELSE '' END
    || CASE WHEN p.icon <> '' THEN ',"icon":' || to_json(p.icon)::text ELSE '' END AS head,
  (extract(epoch FROM p.created_at) * 1000)::float8 AS "createdMs",
  (extract(epoch FROM p.updated_at) * 1000)::float8 AS "updatedMs",
  CASE WHEN p.kind <> 'link'
    THEN ',"slug":' || coalesce(to_json(p.slug)::text, 'null') || ',"path":' || coalesce(to_json(p.path)::text, 'null') END AS "slugPath",
  CASE WHEN p.kind = 'link' THEN ',"hidden":' || p.hidden::text
    ELSE ',"hidden":' || p.hidden::text || ',"noIndex":' || p.no_index::text || ',"noRobotsIndex":' || p.no_robots_index::text
      || CASE WHEN p.kind <> 'group' AND p.description <> '' THEN ',"description":' || to_json(p.description)::text ELSE '' END
  END AS flags,
  CASE WHEN p.kind NOT IN ('link', 'group') THEN p.layout END AS layout,
  CASE WHEN p.kind NOT IN ('link', 'group') THEN p.cover END AS cover,
  CASE WHEN p.kind NOT IN ('link', 'group') AND p.variables <> '{}' THEN p.variables END AS variables,
  CASE WHEN p.kind = 'link' THEN p.link_target END AS "linkTarget",
  CASE WHEN p.kind NOT IN ('link', 'group') THEN p.document_id END AS "documentId",
  p.computed,
  CASE WHEN p.kind NOT IN ('link', 'group') THEN (SELECT d.markdown FROM documents d WHERE d.id = p.document_id) END AS markdown`;

/**
 * The next `limit` shown pages of a revision (`$1`) in key order after the key `$2` (pages not shown have
 * the empty key, so `''` starts the tree). A layer (`$3`: its full base) is read as `revision_pages`
 * resolves it, written out so that the planner merges two ordered index scans (Merge Append): through
 * the view, the base's branch joins `revisions` first and loses the index's order, and a branch without
 * its own ORDER BY is planned for its cheapest path, unordered. The limit is written into the text (one
 * prepared statement per batch size), so even a generic plan knows a batch is small and reads the index
 * in order rather than sorting. The body is a subquery per row, so no sort or hash carries it.
 */
function treeQuery(layer: boolean, limit: number): string {
  const own = `SELECT * FROM revision_page_rows s WHERE s.revision_id = $1 AND NOT s.deleted AND s.tree_key > $2 ORDER BY s.tree_key LIMIT ${limit}`;
  if (!layer) return `SELECT ${TREE_ROW} FROM (${own}) p ORDER BY p.tree_key`;
  return `SELECT ${TREE_ROW} FROM (
      (${own})
      UNION ALL
      (SELECT * FROM revision_page_rows b WHERE b.revision_id = $3 AND NOT b.deleted AND b.tree_key > $2
         AND NOT EXISTS (SELECT 1 FROM revision_page_rows o WHERE o.revision_id = $1 AND o.page_id = b.page_id)
       ORDER BY b.tree_key LIMIT ${limit})
    ) p ORDER BY p.tree_key LIMIT ${limit}`;
}
