import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { SearchTablesJob } from './search-tables.job';

/** Text search configuration of every tsvector Quire builds. */
export const SEARCH_CONFIG = 'english';
const REBUILD_CHUNK = 5000;
/** Pages written by one rebuild from which the table's statistics are refreshed in the same transaction. */
const ANALYZE_AFTER = 5000;

/** A page of a revision being written, as its search row needs it (`prepare`). */
export interface SearchablePage {
  pageId: string;
  parentId: string | null;
  kind: string;
  title: string;
  path: string | null;
  description: string | null;
  noIndex?: boolean;
  documentId?: string | null;
}

/**
 * A space's search table being built apart for a large revision (`SearchIndexWritesRepository.prepare`),
 * handed on as a value: the revision writer returns it with the revision, `SpaceUnitOfWork.commitRevision`
 * gives it to `rebuild`, which swaps it in, or to `abandon` when the write fails first.
 */
export interface PreparedSearchTable {
  readonly spaceId: string;
  readonly revisionId: string;
  /** The table's name once it is committed (its own transaction); rejects if building it failed. */
  readonly table: Promise<string>;
}

/** The weighted vector of a page's title (A) and description (B), `p` its row: the same in every writer. */
const TITLE_TSV = `setweight(to_tsvector('${SEARCH_CONFIG}', p.title), 'A') || setweight(to_tsvector('${SEARCH_CONFIG}', coalesce(p.description, '')), 'B')`;

/** The name every table of one space's search rows has (`search_pages_` and a lower-case ULID). */
export const SPACE_SEARCH_TABLE = /^search_pages_[0-9a-z]{26}$/;

/** The table holding `spaceId`'s search rows: its own (named in `search_tables`), else `search_pages`. */
export async function searchTableOf(spaceId: string, em: Pick<EntityManager, 'query'>): Promise<string> {
  const rows: { table_name: string }[] = await em.query(`SELECT table_name FROM search_tables WHERE space_id = $1`, [spaceId]);
  return rows.length > 0 ? checkedTable(rows[0].table_name) : 'search_pages';
}

/** A table name read from `search_tables`, checked before it goes into SQL (the column has the same check). */
export function checkedTable(name: string | null | undefined): string {
  if (!name) return 'search_pages';
  if (!SPACE_SEARCH_TABLE.test(name)) throw new Error(`search_tables names an unexpected table ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** Titles of each page's ancestors, root first. */
export function ancestorTitles(pages: { page_id: string; parent_id: string | null; title: string }[]): Map<string, string[]> {
  const byId = new Map(pages.map((page) => [page.page_id, page]));
  const memo = new Map<string, string[]>();
  const of = (id: string, depth: number): string[] => {
    const known = memo.get(id);
    if (known) return known;
    const parent = byId.get(id)?.parent_id;
    // The depth guard only matters for a corrupt tree (a cycle): the writer refuses those.
    const parentRow = parent ? byId.get(parent) : undefined;
    const list = parentRow && depth < 1000 ? [...of(parentRow.page_id, depth + 1), parentRow.title] : [];
    memo.set(id, list);
    return list;
  };
  for (const page of pages) of(page.page_id, 0);
  return memo;
}

/**
 * The writer of the search index (`search_pages`): one row per page of each space's active revision,
 * with a weighted tsvector (GIN-indexed). Bodies' tsvectors are computed once per distinct document,
 * so rebuilding a space's rows when its active revision changes is a single INSERT … SELECT. A
 * rebuild of `SEARCH_TABLE_AFTER` pages or more writes a table of the space's own instead, indexed
 * once and swapped in by its `search_tables` row (docs/scaling.md, "Bulk revision writes").
 * `SpaceUnitOfWork` uses it when it activates a revision, and `RevisionWriter` to build a large
 * revision's table apart (`prepare`); the search module reads the rows.
 */
@Injectable()
export class SearchIndexWritesRepository {
  private readonly logger = new Logger(SearchIndexWritesRepository.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly tables: SearchTablesJob,
  ) {}

  /**
   * Starts building the space's own search table for a large revision being written in `em`'s
   * transaction, on a pool connection of its own, while that transaction goes on writing its tree
   * rows: `rebuild` in the same transaction then swaps in the table instead of building it. The
   * rows come from `pages` (the revision's rows, in memory) and `documents.tsv`: every body
   * `pages` references must be committed already (a write that stored its bodies first). The
   * table is committed by its own transaction but named by no `search_tables` row until the
   * revision's commits; meanwhile `em`'s transaction holds an advisory lock on its name, so the
   * sweep (`SearchTablesJob`) leaves it alone. Returns the table being built, for `rebuild` (or
   * `abandon`, if the revision fails first; the sweep would, after a crash). Below
   * `SEARCH_TABLE_AFTER` pages, builds nothing and returns null.
   */
  async prepare(spaceId: string, revisionId: string, pages: SearchablePage[], em: EntityManager): Promise<PreparedSearchTable | null> {
    if (pages.length < this.config.search.tableAfter) return null;
    const name = `search_pages_${newId().toLowerCase()}`;
    await em.query(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [name]);
    const table = this.dataSource.transaction(async (apart) => {
      await this.createTable(name, apart);
      await this.insertPages(checkedTable(name), spaceId, revisionId, pages, apart);
      await this.indexTable(checkedTable(name), apart);
      return name;
    });
    // Awaited by rebuild or abandon; never an unhandled rejection meanwhile.
    table.catch(() => undefined);
    return { spaceId, revisionId, table };
  }

  /**
   * Drops the table `prepare` built for a revision whose write failed. Harmless after `rebuild` named it:
   * the write's transaction rolls back, so no committed row names the dropped table.
   */
  async abandon(prepared: PreparedSearchTable | null | undefined): Promise<void> {
    if (!prepared) return;
    const name = await prepared.table.catch(() => null);
    if (name) {
      await this.dataSource.query(`DROP TABLE IF EXISTS ${checkedTable(name)}`).catch((error: Error) => {
        this.logger.warn({ msg: 'could not drop the search table of a failed write (the sweep will)', table: name, error: error.message });
      });
    }
  }

  /**
   * Replaces the space's rows with the pages of `revisionId`; run in the transaction that activates it.
   * A revision of `SEARCH_TABLE_AFTER` pages or more gets a table of its own (`buildTable`), swapped
   * in by its `search_tables` row: searches see the old rows until this transaction commits, then the
   * new ones; one `prepare` built (`prepared`, for this revision) is swapped in instead of built again.
   * Smaller ones go to `search_pages`, row by row.
   */
  async rebuild(spaceId: string, revisionId: string, em: EntityManager, prepared?: PreparedSearchTable | null): Promise<void> {
    const current: { table_name: string }[] = await em.query(`SELECT table_name FROM search_tables WHERE space_id = $1`, [spaceId]);
    // Rows a space had in search_pages go in every case (none, for a space that already had its own table).
    await em.query(`DELETE FROM search_pages WHERE space_id = $1`, [spaceId]);
    if (prepared && prepared.spaceId === spaceId && prepared.revisionId === revisionId) {
      await this.register(spaceId, revisionId, await prepared.table, em);
    } else {
      if (prepared) await this.dataSource.query(`DROP TABLE IF EXISTS ${checkedTable(await prepared.table)}`);
      // The revision's rows are read once and the search rows written from them (ancestors worked
      // out in JavaScript), never by a join with the rows written in this very transaction: those
      // have no planner statistics yet, and a join planned on the guess (a nested loop over the
      // whole revision per page) was quadratic: 8.5 s for 5,000 of 20,000 pages.
      const pages: SearchablePage[] = await em.query(
        `SELECT page_id AS "pageId", parent_id AS "parentId", kind, title, path, description, no_index AS "noIndex", document_id AS "documentId"
           FROM revision_pages WHERE revision_id = $1`,
        [revisionId],
      );
      if (pages.length >= this.config.search.tableAfter) {
        await this.register(spaceId, revisionId, await this.buildTable(spaceId, revisionId, pages, em), em);
      } else {
        if (current.length > 0) await em.query(`DELETE FROM search_tables WHERE space_id = $1`, [spaceId]);
        await this.insertPages('search_pages', spaceId, revisionId, pages, em);
        // A large rebuild changes the table's word statistics, which the search plans on (a common word
        // is scanned, a rare one read by the index): without them, a 100k-page space's first searches
        // took seconds. ANALYZE sees this transaction's own rows; it takes a lock that only another
        // ANALYZE or VACUUM of search_pages waits for.
        if (pages.length >= ANALYZE_AFTER) await em.query(`ANALYZE search_pages`);
      }
    }
    // The table this swap retired is dropped once the swap has committed (and searches that read its name before have ended).
    if (current.length > 0) await this.tables.dropRetiredAfterCommit(em);
  }

  /** Names `table` as the space's search table in `em`'s transaction: searches read it once that commits. */
  private async register(spaceId: string, revisionId: string, table: string, em: EntityManager): Promise<void> {
    await em.query(
      `INSERT INTO search_tables (space_id, table_name, revision_id) VALUES ($1, $2, $3)
       ON CONFLICT (space_id) DO UPDATE SET table_name = excluded.table_name, revision_id = excluded.revision_id, created_at = now()`,
      [spaceId, table, revisionId],
    );
  }

  /**
   * A new table of the space's rows, made in the caller's transaction (a failure rolls it back with
   * everything else: no table is left over): created without indexes, filled with one INSERT … SELECT
   * per chunk, then indexed once (a GIN index built over all rows costs a fraction of one updated row
   * by row), and analyzed (the search plans need its word statistics). No other table is locked: two
   * large writes of different spaces, and every search, run on.
   */
  private async buildTable(spaceId: string, revisionId: string, pages: SearchablePage[], em: EntityManager): Promise<string> {
    const name = `search_pages_${newId().toLowerCase()}`;
    await this.createTable(name, em);
    await this.insertPages(checkedTable(name), spaceId, revisionId, pages, em);
    await this.indexTable(checkedTable(name), em);
    return name;
  }

  /** A new table with the columns, defaults and storage of `search_pages`, and no index yet. */
  private async createTable(name: string, em: EntityManager): Promise<void> {
    await em.query(`CREATE TABLE ${checkedTable(name)} (LIKE search_pages INCLUDING DEFAULTS INCLUDING STORAGE) WITH (toast_tuple_target = 8160)`);
  }

  /**
   * The indexes of `search_pages` over a filled table, each built once; then its statistics. The
   * server's `maintenance_work_mem` is kept: 16 MB to 1 GB all cost 7–10 s of CPU for the body
   * index of 100,000 pages, 1 GB the most (docs/scaling.md).
   */
  private async indexTable(table: string, em: EntityManager): Promise<void> {
    await em.query(`ALTER TABLE ${table} ADD PRIMARY KEY (space_id, page_id)`);
    await em.query(`CREATE INDEX ON ${table} USING gin (tsv)`);
    await em.query(`CREATE INDEX ON ${table} USING gin (title_tsv)`);
    await em.query(`ANALYZE ${table}`);
  }

  /** The search rows of `pages` (a revision's rows, in memory) into `table`, the vectors of their bodies from `documents`. */
  private async insertPages(table: string, spaceId: string, revisionId: string, pages: SearchablePage[], em: EntityManager): Promise<void> {
    const ancestors = ancestorTitles(pages.map((page) => ({ page_id: page.pageId, parent_id: page.parentId, title: page.title })));
    const rows = pages.filter((page) => page.kind === 'document' && !page.noIndex);
    for (let i = 0; i < rows.length; i += REBUILD_CHUNK) {
      const chunk = rows.slice(i, i + REBUILD_CHUNK);
      await em.query(
        `INSERT INTO ${table} (space_id, page_id, revision_id, document_id, title, path, description, ancestors, title_tsv, tsv)
         SELECT $1, x.page_id, $2, x.document_id, x.title, x.path, x.description, x.ancestors, x.title_tsv, x.title_tsv || coalesce(d.tsv, ''::tsvector)
         FROM (
           SELECT p.page_id, p.document_id, p.title, p.path, coalesce(p.description, '') AS description,
                  ARRAY(SELECT jsonb_array_elements_text(p.ancestors)) AS ancestors, ${TITLE_TSV} AS title_tsv
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[]) AS p (page_id, document_id, title, path, description, ancestors)
         ) x
         LEFT JOIN documents d ON d.id = x.document_id`,
        [
          spaceId,
          revisionId,
          chunk.map((page) => page.pageId),
          chunk.map((page) => page.documentId ?? null),
          chunk.map((page) => page.title),
          chunk.map((page) => page.path),
          chunk.map((page) => page.description),
          chunk.map((page) => JSON.stringify(ancestors.get(page.pageId) ?? [])),
        ],
      );
    }
  }

  /**
   * Follows a revision that differs from the indexed one only in `changed` and `removed` pages (a
   * merge written as a delta): their rows are replaced; the others are left as they are (their page
   * rows are identical in the new revision; `revision_id` then names the revision a row was indexed
   * from, and rewriting it on every row would cost what this method exists to avoid).
   * Rebuilds instead when a changed page with sub-pages has a new title (its descendants' ancestors
   * change). The ancestors of the changed pages are walked up from them by key (`withAncestors`).
   */
  async update(spaceId: string, revisionId: string, changed: string[], removed: string[], em: EntityManager): Promise<void> {
    const table = await searchTableOf(spaceId, em);
    const retitled: unknown[] = await em.query(
      // LATERAL … OFFSET 0: revision_pages is a view over revision layers, probed by key only through conditions on its own columns.
      `SELECT 1 FROM ${table} s,
              LATERAL (SELECT page_id, title FROM revision_pages WHERE revision_id = $2 AND page_id = s.page_id OFFSET 0) p,
              LATERAL (SELECT 1 FROM revision_pages WHERE revision_id = $2 AND parent_id = p.page_id LIMIT 1) c
        WHERE s.space_id = $1 AND s.page_id = ANY($3::text[]) AND s.title <> p.title
        LIMIT 1`,
      [spaceId, revisionId, changed],
    );
    if (retitled.length > 0) return this.rebuild(spaceId, revisionId, em);
    await em.query(`DELETE FROM ${table} WHERE space_id = $1 AND page_id = ANY($2::text[])`, [spaceId, [...changed, ...removed]]);
    if (changed.length === 0) return;
    const ancestors = ancestorTitles(await this.withAncestors(revisionId, changed, em));
    // A few pages, each probed by key (LATERAL … OFFSET 0: through the layered view, a join would hash the whole revision).
    await this.insertRows(
      table,
      spaceId,
      revisionId,
      changed.filter((id) => ancestors.has(id)),
      ancestors,
      'CROSS JOIN LATERAL (SELECT * FROM revision_pages WHERE revision_id = $2 AND page_id = a.page_id OFFSET 0) p',
      em,
    );
  }

  /** Writes the search rows of `ids` (document pages that are indexed) to `table`, `pages` joining each id `a.page_id` to its row `p`. */
  private async insertRows(
    table: string,
    spaceId: string,
    revisionId: string,
    ids: string[],
    ancestors: Map<string, string[]>,
    pages: string,
    em: EntityManager,
  ): Promise<void> {
    for (let i = 0; i < ids.length; i += REBUILD_CHUNK) {
      const chunk = ids.slice(i, i + REBUILD_CHUNK);
      await em.query(
        `INSERT INTO ${table} (space_id, page_id, revision_id, document_id, title, path, description, ancestors, title_tsv, tsv)
         SELECT $1, x.page_id, $2, x.document_id, x.title, x.path, x.description, x.ancestors, x.title_tsv, x.title_tsv || coalesce(d.tsv, ''::tsvector)
         FROM (
           SELECT p.page_id, p.document_id, p.title, p.path, coalesce(p.description, '') AS description,
                  ARRAY(SELECT jsonb_array_elements_text(a.ancestors)) AS ancestors,
                  ${TITLE_TSV} AS title_tsv
           FROM unnest($3::text[], $4::jsonb[]) AS a (page_id, ancestors)
           ${pages}
           WHERE p.kind = 'document' AND NOT p.no_index
         ) x
         LEFT JOIN documents d ON d.id = x.document_id`,
        [spaceId, revisionId, chunk, chunk.map((id) => JSON.stringify(ancestors.get(id)))],
      );
    }
  }

  /** The pages `ids` of a revision and all their ancestors (id, parent, title), walked up by key: never the whole tree. */
  private withAncestors(revisionId: string, ids: string[], em: EntityManager): Promise<{ page_id: string; parent_id: string | null; title: string }[]> {
    // UNION (not ALL) ends the walk on a page already seen, a cycle included.
    return em.query(
      `WITH RECURSIVE up (page_id, parent_id, title) AS (
         SELECT p.page_id, p.parent_id, p.title
           FROM unnest($2::text[]) AS a (id)
           CROSS JOIN LATERAL (SELECT page_id, parent_id, title FROM revision_pages WHERE revision_id = $1 AND page_id = a.id OFFSET 0) p
         UNION
         SELECT q.page_id, q.parent_id, q.title
           FROM up CROSS JOIN LATERAL (SELECT page_id, parent_id, title FROM revision_pages WHERE revision_id = $1 AND page_id = up.parent_id OFFSET 0) q
       )
       SELECT page_id, parent_id, title FROM up`,
      [revisionId, ids],
    );
  }
}
