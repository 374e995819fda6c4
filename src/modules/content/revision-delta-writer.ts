import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { newId } from '../../common/ids';
import { contentError } from './content.errors';
import type { RevisionDelta } from './revision-delta';
import { writeDeltaLinks } from './revision-delta-links';
import { Revision } from './revision.entity';
import type { PageKind } from './revision-page.entity';
import { RevisionWriter, StoredPage } from './revision-writer';
import { deriveTreeKeys, KeyedNode } from './tree/tree-keys';

export interface DeltaWritten {
  revision: Revision;
  /** Pages whose rows differ from the base's, and pages gone: what the search index must follow. */
  delta: { changed: string[]; removed: string[] };
  /** How the revision was stored: a layer over a full base, or full (past the layer bound). */
  stored: { layer: boolean };
}

/** A page row as stored (snake_case, what `revision_pages` answers). */
type PageRow = Record<string, unknown> & {
  page_id: string;
  parent_id: string | null;
  position: number;
  kind: PageKind;
  slug: string | null;
  path: string | null;
  document_id: string | null;
  tree_key: string;
};

const PAGE_COLUMNS = `page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
  hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at, tree_key`;
/** The same columns named as `StoredPage` names them (`page_id AS "pageId"`, …). */
const PAGE_FIELDS = PAGE_COLUMNS.replace(/\w+/g, (column) => `${column} AS "${column.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())}"`);

/** The per-revision tables: the stored one, the view resolving layers, and the columns besides `revision_id`. */
const TABLES = [
  { rows: 'revision_page_rows', view: 'revision_pages', columns: PAGE_COLUMNS },
  { rows: 'revision_file_rows', view: 'revision_files', columns: 'file_id, name, content_type, size, width, height, blob_id, created_at' },
  { rows: 'revision_reusable_content_rows', view: 'revision_reusable_contents', columns: 'reusable_content_id, title, document_id' },
  { rows: 'revision_link_rows', view: 'revision_links', columns: 'target_key, status, target, pages' },
];

/**
 * Writes a revision as a delta of another one, so its cost follows the size of the change, not of
 * the space. The new revision is a **layer** over the base's full revision (`revisions.base_id`):
 * it stores only the rows that differ (the base layer's own rows, when the base is itself a layer,
 * then the changed pages, the pages below a moved or renamed page with their new paths, tombstones
 * for pages gone, the files added, and the link rows whose pages or status change). Past a bound
 * (`AppConfig.revisionLayers`) the revision is written full instead, from the base's resolved rows:
 * a layer stays small and reads of it stay two index probes per key. Nothing here reads the whole tree.
 */
@Injectable()
export class RevisionDeltaWriter {
  constructor(
    private readonly writer: RevisionWriter,
    private readonly config: AppConfig,
  ) {}

  async write(delta: RevisionDelta, em: EntityManager): Promise<DeltaWritten> {
    const [base]: { id: string; base_id: string | null }[] = await em.query(`SELECT id, base_id FROM revisions WHERE id = $1`, [delta.base]);
    if (!base) throw new Error(`revision ${delta.base} does not exist`);
    const changed = new Map(delta.pages.map((page) => [page.pageId, page]));
    const changedIds = [...changed.keys()];
    const removed = new Set(delta.removed);
    const before: PageRow[] = changedIds.length
      ? await em.query(`SELECT ${PAGE_COLUMNS} FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [delta.base, changedIds])
      : [];
    const beforeById = new Map(before.map((row) => [row.page_id, row]));
    // Pages below a page moved (among its siblings too), renamed or of another kind keep their row
    // but not their path or their place in the shown tree (`tree/tree-keys.ts`).
    const moved = delta.pages.filter((page) => {
      const old = beforeById.get(page.pageId);
      return old && (old.parent_id !== page.parentId || old.slug !== page.slug || old.position !== page.position || old.kind !== page.kind);
    });
    const below = await this.subtrees(
      delta.base,
      moved.map((page) => page.pageId),
      em,
    );
    const descendants = below.filter((row) => !changed.has(row.pageId) && !removed.has(row.pageId));
    const { paths, keys } = await this.paths(delta, beforeById, descendants, em);
    const repathed = descendants.filter((row) => paths.get(row.pageId) !== row.path || keys.get(row.pageId) !== row.treeKey);
    const inserted = delta.pages.filter((page) => !beforeById.has(page.pageId));

    // A layer over the base's full revision, unless it would pass the bound.
    const full = base.base_id ?? base.id;
    const [{ own }]: { own: number }[] = base.base_id
      ? await em.query(`SELECT count(*)::int AS own FROM revision_page_rows WHERE revision_id = $1`, [base.id])
      : [{ own: 0 }];
    const pageRows = own + changedIds.length + repathed.length + removed.size;
    let layer = true;
    if (pageRows > this.config.revisionLayers.minRows) {
      const [{ pages }]: { pages: number }[] = await em.query(`SELECT count(*)::int AS pages FROM revision_page_rows WHERE revision_id = $1 AND NOT deleted`, [
        full,
      ]);
      layer = pageRows <= Math.max(this.config.revisionLayers.minRows, this.config.revisionLayers.maxShare * pages);
    }

    await this.writer.storeContent(delta.pages, delta.files, em);
    const revision = em.create(Revision, {
      id: newId(),
      spaceId: delta.spaceId,
      parents: delta.parents,
      type: delta.type,
      createdBy: delta.createdBy,
      baseId: layer ? full : null,
      deltaBaseId: delta.base,
      deltaPageIds: [...new Set([...changedIds, ...repathed.map((row) => row.pageId), ...removed])],
      deltaFileIds: delta.files.map((file) => file.fileId),
    });
    await em.insert(Revision, revision);
    await em.query(`UPDATE revisions r SET variables = b.variables, git = b.git FROM revisions b WHERE r.id = $1 AND b.id = $2`, [revision.id, delta.base]);
    for (const table of TABLES) {
      if (layer && base.base_id) {
        // The base layer's own rows (and tombstones) come along: a layer's base is always full.
        await em.query(
          `INSERT INTO ${table.rows} (revision_id, ${table.columns}, deleted) SELECT $1, ${table.columns}, deleted FROM ${table.rows} WHERE revision_id = $2`,
          [revision.id, base.id],
        );
      } else if (!layer) {
        await em.query(`INSERT INTO ${table.rows} (revision_id, ${table.columns}) SELECT $1, ${table.columns} FROM ${table.view} WHERE revision_id = $2`, [
          revision.id,
          base.id,
        ]);
      }
    }

    // Pages: the changed rows and the repathed ones replace whatever the new revision carries for them.
    const now = new Date();
    const rows: StoredPage[] = [
      ...delta.pages.map(({ markdown: _markdown, ...page }) => ({
        ...page,
        path: paths.get(page.pageId) ?? null,
        treeKey: keys.get(page.pageId) as string,
        createdAt: page.createdAt ?? now,
        updatedAt: page.updatedAt ?? now,
      })),
      ...repathed.map((row) => ({ ...row, path: paths.get(row.pageId) ?? null, treeKey: keys.get(row.pageId) as string })),
    ];
    const replaced = [...rows.map((row) => row.pageId), ...removed];
    if (replaced.length > 0) await em.query(`DELETE FROM revision_page_rows WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [revision.id, replaced]);
    await this.writer.insertPages(revision.id, rows, em);
    if (layer && removed.size > 0) {
      // A tombstone hides the full base's row (it repeats it, so the row's checks hold); pages only the base layer had are simply not carried.
      await em.query(
        `INSERT INTO revision_page_rows (revision_id, ${PAGE_COLUMNS}, deleted)
         SELECT $1, ${PAGE_COLUMNS}, true FROM revision_page_rows WHERE revision_id = $2 AND page_id = ANY($3::text[]) AND NOT deleted`,
        [revision.id, full, [...removed]],
      );
    }
    const fileRows = delta.files.map(({ data: _data, ...file }) => ({ ...file, blobId: file.blobId as string, createdAt: file.createdAt ?? now }));
    if (fileRows.length > 0) {
      await em.query(`DELETE FROM revision_file_rows WHERE revision_id = $1 AND file_id = ANY($2::text[])`, [revision.id, fileRows.map((file) => file.fileId)]);
      await this.writer.insertFiles(revision.id, fileRows, em);
    }

    // Pages whose body differs from the base's, and pages whose path changed: their links are classified again.
    const newBodies = delta.pages
      .filter((page) => !beforeById.has(page.pageId) || beforeById.get(page.pageId)?.document_id !== (page.documentId ?? null))
      .map((page) => page.pageId);
    const newPaths = [...inserted.map((page) => page.pageId), ...moved.map((page) => page.pageId), ...repathed.map((row) => row.pageId)];
    await writeDeltaLinks({ revisionId: revision.id, baseId: base.id, full: layer ? full : null, delta, inserted, paths, newBodies, newPaths }, em);
    return {
      revision: await em.findOneByOrFail(Revision, { id: revision.id }),
      delta: { changed: [...changedIds, ...repathed.map((row) => row.pageId)], removed: [...removed] },
      stored: { layer },
    };
  }

  /** Every page below `roots` in `revisionId` (the roots themselves excluded), whole rows; children probed by index (LATERAL … OFFSET 0, see `ContentRepository.subtree`). */
  private async subtrees(revisionId: string, roots: string[], em: EntityManager): Promise<StoredPage[]> {
    if (roots.length === 0) return [];
    return em.query(
      `WITH RECURSIVE sub AS (
         SELECT ${PAGE_FIELDS} FROM revision_pages WHERE revision_id = $1 AND parent_id = ANY($2::text[])
         UNION ALL
         SELECT p.* FROM sub, LATERAL (SELECT ${PAGE_FIELDS} FROM revision_pages WHERE revision_id = $1 AND parent_id = sub."pageId" OFFSET 0) p
       ) SELECT * FROM sub`,
      [revisionId, roots],
    );
  }

  /**
   * Paths and tree keys of the changed pages and of the base's pages below a moved one (through
   * their parents' new ones, or the base's of parents that did not move); parents, cycles and
   * sibling slugs checked.
   */
  private async paths(
    delta: RevisionDelta,
    beforeById: Map<string, PageRow>,
    descendants: StoredPage[],
    em: EntityManager,
  ): Promise<{ paths: Map<string, string | null>; keys: Map<string, string> }> {
    const removed = new Set(delta.removed);
    const nodes = new Map<string, { parentId: string | null; slug: string | null }>();
    for (const row of descendants) nodes.set(row.pageId, { parentId: row.parentId, slug: row.slug });
    for (const page of delta.pages) nodes.set(page.pageId, { parentId: page.parentId, slug: page.slug });
    const parentIds = [...new Set([...nodes.values()].map((node) => node.parentId).filter((id): id is string => id !== null && !nodes.has(id)))];
    const parents: PageRow[] = parentIds.length
      ? await em.query(`SELECT page_id, path, kind, tree_key FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [delta.base, parentIds])
      : [];
    const kept = parents.filter((row) => !removed.has(row.page_id));
    const parentPath = new Map(kept.map((row) => [row.page_id, row.path]));
    const paths = new Map<string, string | null>();
    const resolve = (id: string, seen: Set<string>): string | null => {
      if (paths.has(id)) return paths.get(id) as string | null;
      const node = nodes.get(id) as { parentId: string | null; slug: string | null };
      if (seen.has(id)) throw contentError('content.invalid_pages', `pages: the page tree has a cycle at ${id}`);
      seen.add(id);
      let above: string | null = null;
      if (node.parentId !== null) {
        if (nodes.has(node.parentId)) above = resolve(node.parentId, seen);
        else if (parentPath.has(node.parentId)) above = parentPath.get(node.parentId) ?? null;
        else throw contentError('content.invalid_pages', `pages: page ${id} has an unknown parent ${node.parentId}`);
      }
      const path = node.slug === null ? null : above ? `${above}/${node.slug}` : node.slug;
      paths.set(id, path);
      return path;
    };
    for (const id of nodes.keys()) resolve(id, new Set());
    // The tree is checked (parents known, no cycle): the keys follow the same parents.
    const keyed = new Map<string, KeyedNode>();
    for (const row of descendants) keyed.set(row.pageId, row);
    for (const page of delta.pages) keyed.set(page.pageId, page);
    const keys = deriveTreeKeys([...keyed.values()], new Map(kept.map((row) => [row.page_id, { key: row.tree_key, kind: row.kind }])));

    // Slugs stay unique among siblings: pages new or moved against each other and against the siblings they join.
    const placed = delta.pages.filter((page) => {
      const old = beforeById.get(page.pageId);
      return !old || old.parent_id !== page.parentId || old.slug !== page.slug;
    });
    const parentsOfPlaced = [...new Set(placed.map((page) => page.parentId))];
    if (parentsOfPlaced.length > 0) {
      const siblings: PageRow[] = await em.query(
        `SELECT page_id, parent_id, slug FROM revision_pages
          WHERE revision_id = $1 AND slug IS NOT NULL AND (parent_id = ANY($2::text[]) OR (parent_id IS NULL AND $3))`,
        [delta.base, parentsOfPlaced.filter((id) => id !== null), parentsOfPlaced.includes(null)],
      );
      const taken = new Map<string, string>();
      const own = new Set(delta.pages.map((page) => page.pageId));
      for (const row of siblings) if (!own.has(row.page_id) && !removed.has(row.page_id)) taken.set(`${row.parent_id ?? ''}\u0000${row.slug}`, row.page_id);
      for (const page of delta.pages) {
        if (page.slug === null) continue;
        const key = `${page.parentId ?? ''}\u0000${page.slug}`;
        const other = taken.get(key);
        if (other && other !== page.pageId) throw contentError('content.duplicate_slug', `slug: page ${page.pageId} repeats the slug of its sibling ${other}`);
        taken.set(key, page.pageId);
      }
    }
    return { paths, keys };
  }
}
