import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SemanticFile, SemanticPage, Versions } from './semantic-changes';

const PAGE_COLUMNS = `page_id, parent_id, kind, title, emoji, slug, path, description, layout, cover, variables, document_id, link_target, computed`;
/** What a page change is made of (`path` left out: a page below a moved one has a new path and no change of its own). */
const COMPARED_PAGE_COLUMNS = PAGE_COLUMNS.replace(' path,', '');
const FILE_COLUMNS = `file_id, name, content_type, size, width, height, blob_id`;

const STORED = {
  pages: { view: 'revision_pages', rows: 'revision_page_rows', key: 'page_id', columns: PAGE_COLUMNS, compared: COMPARED_PAGE_COLUMNS },
  files: { view: 'revision_files', rows: 'revision_file_rows', key: 'file_id', columns: FILE_COLUMNS, compared: FILE_COLUMNS },
} as const;
type Stored = (typeof STORED)[keyof typeof STORED];

/** How many deltas back `after` may be from `before` for their delta keys to be used (past it, rows are compared). */
const MAX_DELTA_CHAIN = 200;

/**
 * Reads what differs between two revisions of a space, from their stored rows.
 *
 * When `after` was written from `before` by deltas alone (`revisions.delta_base_id`, back to `before`:
 * a change request's head from its base, a merge from main's revision), it equals `before` on every
 * key but those its deltas name (`delta_page_ids`, `delta_file_ids`), so only those keys are read, by
 * primary key in both revisions: the cost follows the change, whatever the space or its layers hold.
 * Otherwise, two revisions that are a full revision and layers over it (or layers over one full
 * revision) can only differ in the layers' own rows (`revision_*_rows` under the layers' ids,
 * tombstones included), and of two layers only in the keys whose own rows differ between them (this
 * compares the layers whole: main's layer carries the rows of the layers below it until compaction).
 * Otherwise (a compaction between them, or no parent) the two are compared whole in SQL.
 */
@Injectable()
export class SemanticChangesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async differences(before: string | null, after: string): Promise<{ pages: Versions<SemanticPage>[]; files: Versions<SemanticFile>[] }> {
    if (before === after) return { pages: [], files: [] };
    // One snapshot for every read: revisions are immutable, but a compaction may delete a layer meanwhile.
    return this.dataSource.transaction('REPEATABLE READ', async (em) => {
      const delta = before === null ? null : await this.deltaKeys(before, after, em);
      const layers = before === null || delta !== null ? null : await this.sharedBaseLayers([before, after], em);
      const keys = async (stored: Stored, known: string[] | undefined) => known ?? (await this.differingKeys(stored, before, after, layers, em));
      const pages = await this.versions(STORED.pages, before, after, await keys(STORED.pages, delta?.pages), em);
      const files = await this.versions(STORED.files, before, after, await keys(STORED.files, delta?.files), em);
      return { pages: pages.map(mapVersions(semanticPage)), files: files.map(mapVersions(semanticFile)) };
    });
  }

  /** Pages by id (parents of moved pages), as `revisionId` has them. */
  async pages(revisionId: string, pageIds: string[]): Promise<Map<string, SemanticPage>> {
    if (pageIds.length === 0) return new Map();
    const rows: Record<string, unknown>[] = await this.dataSource.query(byKeys(STORED.pages, PAGE_COLUMNS), [revisionId, pageIds]);
    return new Map(rows.map((row) => [row.page_id as string, semanticPage(row)]));
  }

  /**
   * The keys that may differ between `before` and `after` when `after` descends from `before` by
   * deltas alone: the union of the keys of each delta on the way (each revision's `delta_base_id`,
   * by primary key); null when the way is not all deltas or longer than `MAX_DELTA_CHAIN`.
   */
  private async deltaKeys(before: string, after: string, em: EntityManager): Promise<{ pages: string[]; files: string[] } | null> {
    const chain: { delta_base_id: string | null; delta_page_ids: string[] | null; delta_file_ids: string[] | null }[] = await em.query(
      `WITH RECURSIVE chain AS (
         SELECT delta_base_id, delta_page_ids, delta_file_ids, 1 AS depth FROM revisions WHERE id = $2
         UNION ALL
         SELECT r.delta_base_id, r.delta_page_ids, r.delta_file_ids, c.depth + 1
           FROM chain c JOIN revisions r ON r.id = c.delta_base_id
          WHERE c.delta_base_id <> $1 AND c.depth < $3)
       SELECT delta_base_id, delta_page_ids, delta_file_ids FROM chain ORDER BY depth`,
      [before, after, MAX_DELTA_CHAIN],
    );
    if (chain.length === 0 || chain.at(-1)?.delta_base_id !== before) return null;
    if (chain.some((step) => step.delta_page_ids === null || step.delta_file_ids === null)) return null;
    return {
      pages: [...new Set(chain.flatMap((step) => step.delta_page_ids as string[]))],
      files: [...new Set(chain.flatMap((step) => step.delta_file_ids as string[]))],
    };
  }

  /** The layers among `revisionIds` when they all share one full base (a full one among them counts as that base); null otherwise. */
  private async sharedBaseLayers(revisionIds: string[], em: EntityManager): Promise<string[] | null> {
    const rows: { id: string; base_id: string | null }[] = await em.query(`SELECT id, base_id FROM revisions WHERE id = ANY($1::text[])`, [revisionIds]);
    if (rows.length !== new Set(revisionIds).size || new Set(rows.map((row) => row.base_id ?? row.id)).size !== 1) return null;
    return rows.filter((row) => row.base_id !== null).map((row) => row.id);
  }

  /** The keys whose rows may differ, from the stored rows (see the class). */
  private async differingKeys(stored: Stored, before: string | null, after: string, layers: string[] | null, em: EntityManager): Promise<string[]> {
    let keys: string[];
    if (layers !== null) {
      if (layers.length === 0) return [];
      if (layers.length === 2 && before !== null) {
        // Two layers over one base: a layer carries the rows of the layer it was written over, so a
        // change request's head repeats its base's layer. Keys whose own rows are the same in both
        // (tombstones included) are the same in both revisions; only the rest are read.
        const side = (param: string) => `SELECT ${stored.compared}, deleted FROM ${stored.rows} WHERE revision_id = ${param}`;
        const rows: { key: string }[] = await em.query(
          `WITH b AS (${side('$1')}), a AS (${side('$2')})
           SELECT coalesce(b.${stored.key}, a.${stored.key}) AS key FROM b FULL JOIN a ON a.${stored.key} = b.${stored.key}
            WHERE b IS DISTINCT FROM a`,
          [before, after],
        );
        keys = rows.map((row) => row.key);
      } else {
        const rows: { key: string }[] = await em.query(`SELECT DISTINCT ${stored.key} AS key FROM ${stored.rows} WHERE revision_id = ANY($1::text[])`, [
          layers,
        ]);
        keys = rows.map((row) => row.key);
      }
    } else {
      const side = (param: string) => `SELECT ${stored.compared} FROM ${stored.view} WHERE revision_id = ${param}`;
      const rows: { key: string }[] = await em.query(
        `WITH b AS (${side('$1')}), a AS (${side('$2')})
         SELECT coalesce(b.${stored.key}, a.${stored.key}) AS key FROM b FULL JOIN a ON a.${stored.key} = b.${stored.key}
          WHERE b IS DISTINCT FROM a`,
        [before, after],
      );
      keys = rows.map((row) => row.key);
    }
    return keys;
  }

  /** Both revisions' rows of `keys`, by key. */
  private async versions(
    stored: Stored,
    before: string | null,
    after: string,
    keys: string[],
    em: EntityManager,
  ): Promise<Versions<Record<string, unknown>>[]> {
    if (keys.length === 0) return [];
    const read = async (revisionId: string): Promise<Record<string, unknown>[]> => em.query(byKeys(stored, stored.columns), [revisionId, keys]);
    const versions = new Map<string, Versions<Record<string, unknown>>>();
    const place = (rows: Record<string, unknown>[], side: 'before' | 'after') => {
      for (const row of rows) {
        const key = row[stored.key] as string;
        versions.set(key, { ...versions.get(key), [side]: row });
      }
    };
    if (before !== null) place(await read(before), 'before');
    place(await read(after), 'after');
    return [...versions.values()];
  }
}

/**
 * `columns` of the keys `$2` in revision `$1`, one primary-key probe per key in each branch of the
 * layered view (`OFFSET 0` keeps the subquery from being flattened into a join). Not `key = ANY($2)`:
 * the planner, which underestimates a revision's rows, then scans every row of the full base under a
 * layer (its `revision_id` index) and filters the keys, O(space).
 */
function byKeys(stored: Stored, columns: string): string {
  return `SELECT v.* FROM unnest($2::text[]) AS k(key)
    CROSS JOIN LATERAL (SELECT ${columns} FROM ${stored.view} WHERE revision_id = $1 AND ${stored.key} = k.key OFFSET 0) v`;
}

function mapVersions<T>(map: (row: Record<string, unknown>) => T) {
  return (entry: Versions<Record<string, unknown>>): Versions<T> => ({
    ...(entry.before ? { before: map(entry.before) } : {}),
    ...(entry.after ? { after: map(entry.after) } : {}),
  });
}

function semanticPage(row: Record<string, unknown>): SemanticPage {
  return {
    pageId: row.page_id,
    parentId: row.parent_id,
    kind: row.kind,
    title: row.title,
    emoji: row.emoji,
    slug: row.slug,
    path: row.path,
    description: row.description,
    layout: row.layout,
    cover: row.cover,
    variables: row.variables,
    documentId: row.document_id,
    linkTarget: row.link_target,
    computed: row.computed,
  } as SemanticPage;
}

function semanticFile(row: Record<string, unknown>): SemanticFile {
  return {
    fileId: row.file_id,
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    blobId: row.blob_id,
  } as SemanticFile;
}
