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

/**
 * Reads what differs between two revisions of a space, from their stored rows. Two revisions that
 * are a full revision and layers over it (or layers over one full revision) can only differ in the
 * layers' own rows (`revision_*_rows` under the layers' ids, tombstones included), and of two layers
 * only in the keys whose own rows differ between them; only those keys are read, by primary key: the
 * cost follows the change (and the layers), not the space. Otherwise (a compaction between them, or no parent)
 * the two are compared whole in SQL.
 */
@Injectable()
export class SemanticChangesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async differences(before: string | null, after: string): Promise<{ pages: Versions<SemanticPage>[]; files: Versions<SemanticFile>[] }> {
    if (before === after) return { pages: [], files: [] };
    // One snapshot for every read: revisions are immutable, but a compaction may delete a layer meanwhile.
    return this.dataSource.transaction('REPEATABLE READ', async (em) => {
      const layers = before === null ? null : await this.sharedBaseLayers([before, after], em);
      const pages = await this.versions(STORED.pages, before, after, layers, em);
      const files = await this.versions(STORED.files, before, after, layers, em);
      return { pages: pages.map(mapVersions(semanticPage)), files: files.map(mapVersions(semanticFile)) };
    });
  }

  /** Pages by id (parents of moved pages), as `revisionId` has them. */
  async pages(revisionId: string, pageIds: string[]): Promise<Map<string, SemanticPage>> {
    if (pageIds.length === 0) return new Map();
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT ${PAGE_COLUMNS} FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`,
      [revisionId, pageIds],
    );
    return new Map(rows.map((row) => [row.page_id as string, semanticPage(row)]));
  }

  /** The layers among `revisionIds` when they all share one full base (a full one among them counts as that base); null otherwise. */
  private async sharedBaseLayers(revisionIds: string[], em: EntityManager): Promise<string[] | null> {
    const rows: { id: string; base_id: string | null }[] = await em.query(`SELECT id, base_id FROM revisions WHERE id = ANY($1::text[])`, [revisionIds]);
    if (rows.length !== new Set(revisionIds).size || new Set(rows.map((row) => row.base_id ?? row.id)).size !== 1) return null;
    return rows.filter((row) => row.base_id !== null).map((row) => row.id);
  }

  private async versions(
    stored: Stored,
    before: string | null,
    after: string,
    layers: string[] | null,
    em: EntityManager,
  ): Promise<Versions<Record<string, unknown>>[]> {
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
    if (keys.length === 0) return [];
    // One query per revision: `revision_id = $1` is the condition the layered views resolve by index in both branches.
    const read = async (revisionId: string): Promise<Record<string, unknown>[]> =>
      em.query(`SELECT ${stored.columns} FROM ${stored.view} WHERE revision_id = $1 AND ${stored.key} = ANY($2::text[])`, [revisionId, keys]);
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
