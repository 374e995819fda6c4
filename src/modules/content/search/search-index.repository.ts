import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { decodeCursor, encodeCursor, invalidCursor } from '../../../common/pagination/cursor';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import type { Page } from '../../../common/pagination/paginate';
import { queryPrepared } from '../../../database/prepared-query';
import { checkedTable, SEARCH_CONFIG } from '../../space-writes/search-index-writes.repository';
import type { SearchHit, SectionHit } from './search.read-model';

// Weights of D, C, B, A (body C, headings and description B, title A): a title match outranks
// any number of body matches of the same word.
const WEIGHTS = `'{0.01, 0.05, 0.3, 1.0}'`;
// A tsvector holds at most 1 MB; a section's text is matched on its beginning.
const MAX_SECTION_CHARS = 400_000;
const LIST = 'search:score:desc';
/** SQLSTATE of a relation that does not exist. */
const UNDEFINED_TABLE = '42P01';

/*
 * Statements whose plan does not hang on the query's words are named prepared statements (planned once per
 * connection): the parse of the query with each space's table, and the sections of the pages found (read by
 * document id). The statements that find and count the matches stay planned for each query: whether a word is on
 * most pages (a scan that stops at the bound) or on few (the GIN index) is what their plan is chosen by.
 */
const PARSE_SQL = `SELECT websearch_to_tsquery('${SEARCH_CONFIG}', $1)::text AS tsquery, s.space_id, t.table_name AS table
  FROM unnest($2::text[]) s(space_id) LEFT JOIN search_tables t ON t.space_id = s.space_id`;
const SECTIONS_SQL = `SELECT s.document_id AS "documentId", s.anchor, s.heading, s.body, ts_rank(${WEIGHTS}, v.tsv, q) AS score
  FROM document_sections s
  CROSS JOIN websearch_to_tsquery('${SEARCH_CONFIG}', $2) q
  CROSS JOIN LATERAL (
    SELECT setweight(to_tsvector('${SEARCH_CONFIG}', s.heading), 'B') ||
           setweight(to_tsvector('${SEARCH_CONFIG}', left(s.body, ${MAX_SECTION_CHARS})), 'C') AS tsv
  ) v
  WHERE s.document_id = ANY($1) AND v.tsv @@ q
  ORDER BY score DESC, s.position`;

/** A query parsed for one space (`SearchIndexRepository.parse`). */
export interface ParsedSearch {
  tsquery: string;
  table: string | null;
}

export interface SearchOptions {
  rankedOnly?: boolean;
  bound?: number;
  parsed?: Map<string, ParsedSearch>;
}

/** A page of search hits, and the rank (one-based) of its first hit in the whole ranked list. */
export interface RankedPage extends Page<SearchHit> {
  first: number;
}

/**
 * Queries of the search index (`search_pages`: one row per page of each space's active revision,
 * GIN-indexed twice: `title_tsv` for the title and description, `tsv` for everything; a space
 * written by a large rebuild has the same rows in a table of its own, named in `search_tables`).
 * The unit of work writes its rows (`SearchIndexWritesRepository`).
 *
 * What a search costs follows the page of results, not the space: the matches are ranked among a
 * bounded set of candidates, every page whose title or description matches (up to `candidates`),
 * then pages whose body matches (up to `candidates`), in index order. A space with fewer matches
 * than that (most spaces, every test) ranks every match, so the ranking is exact; beyond it, a
 * body-only match outside the first candidates is not ranked, which is the trade for a bounded
 * cost (docs/scaling.md). Walking past the ranked candidates, the other matches follow by page id
 * (their scores shown, not sorted by), so the walk still reaches every match once. `count` is
 * exact up to the bound, and an estimate above it.
 */
@Injectable()
export class SearchIndexRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Matching pages, best first (ties broken by page id, so the walk is stable). The cursor holds
   * the last hit's score, page id and rank, the bound the walk started with, and its phase: 0
   * while walking the ranked candidates, 1 once past them (the other matches, by page id).
   */
  /**
   * `rankedOnly`: stop at the ranked candidates (a site search merges spaces by score, so it never walks
   * the unranked rest); `bound`: how many title and body matches to rank (default: `candidates`);
   * `parsed`: the query and table as `parse` read them for several spaces at once.
   */
  async search(
    spaceId: string,
    query: string,
    list: Pick<ListQueryDto, 'page' | 'limit'>,
    candidates: number,
    options: SearchOptions = {},
  ): Promise<RankedPage> {
    try {
      return await this.searchOnce(spaceId, query, list, candidates, options);
    } catch (error) {
      // The space's table was looked up just before a swap retired it and the job dropped it: the
      // next look-up finds the table that replaced it.
      if ((error as { code?: string }).code !== UNDEFINED_TABLE) throw error;
      return this.searchOnce(spaceId, query, list, candidates, { ...options, parsed: undefined });
    }
  }

  private async searchOnce(
    spaceId: string,
    query: string,
    list: Pick<ListQueryDto, 'page' | 'limit'>,
    candidates: number,
    options: SearchOptions,
  ): Promise<RankedPage> {
    const cursor = list.page ? decodeCursor(list.page, LIST, 5) : undefined;
    const [score, lastId, before, startBound, phase] = cursor ?? [0, '', 0, Math.max(options.bound ?? candidates, list.limit + 1), 0];
    const valid = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min;
    if (typeof score !== 'number' || typeof lastId !== 'string' || !valid(before, 0) || !valid(startBound, 1) || (phase !== 0 && phase !== 1)) {
      throw invalidCursor();
    }
    const bound = startBound as number;
    const rank = before as number;
    // The query is parsed first and passed on as a constant, so the planner sees how common its
    // words are (a word on most pages is read by a scan that stops at the bound, a rare one by the index).
    // The same round trip finds the table holding the space's rows (its own after a large rebuild, else search_pages).
    const { tsquery, table: own } = options.parsed?.get(spaceId) ?? (await this.parse([spaceId], query)).get(spaceId)!;
    if (tsquery === '') return { items: [], count: 0, first: 1 };
    const table = checkedTable(own);
    const columns = `page_id AS "pageId", document_id AS "documentId", title, path, description, ancestors, ts_rank(${WEIGHTS}, tsv, $2::tsquery) AS score`;
    // Each branch ranks its own rows (no second visit). `IS TRUE` keeps the whole-query check of a
    // title match a filter, so the planner never intersects it with the body index's bitmap.
    const pool = `titled AS (
        SELECT ${columns} FROM ${table}
        WHERE space_id = $1 AND title_tsv @@ $2::tsquery AND (tsv @@ $2::tsquery) IS TRUE
        LIMIT $3
      ),
      bodied AS (
        SELECT ${columns} FROM ${table} WHERE space_id = $1 AND tsv @@ $2::tsquery LIMIT $3
      )`;
    // A ranked-only walk counts the matches in the same statement (`matches`, up to candidates + 1).
    const counted = options.rankedOnly === true;
    const fetchRanked = () => {
      const values: unknown[] = [spaceId, tsquery, bound, list.limit + 1];
      const after = phase === 0 && cursor ? `WHERE (score, "pageId") < ($${values.push(score)}::real, $${values.push(lastId)}::text)` : '';
      const matches = counted
        ? `, (SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE space_id = $1 AND tsv @@ $2::tsquery LIMIT $${values.push(candidates + 1)}) m)::int AS matches`
        : '';
      return this.dataSource.query(
        `WITH ${pool},
         ranked AS (SELECT * FROM titled UNION SELECT * FROM bodied)
         SELECT *, (SELECT count(*) FROM bodied)::int AS pool${matches} FROM ranked
         ${after}
         ORDER BY score DESC, "pageId" DESC
         LIMIT $4`,
        values,
      ) as Promise<(SearchHit & { pool: number; matches?: number })[]>;
    };
    // Past the candidates: the other matches by page id (descending, the primary key read backwards).
    const fetchRest = (after: string | null) =>
      this.dataSource.query(
        `WITH ${pool}
         SELECT ${columns}
         FROM ${table}
         WHERE space_id = $1 AND tsv @@ $2::tsquery ${after === null ? '' : 'AND page_id < $5'}
           AND page_id NOT IN (SELECT "pageId" FROM titled UNION SELECT "pageId" FROM bodied)
         ORDER BY page_id DESC
         LIMIT $4`,
        after === null ? [spaceId, tsquery, bound, list.limit + 1] : [spaceId, tsquery, bound, list.limit + 1, after],
      ) as Promise<SearchHit[]>;

    let matches: number | undefined;
    const [separateCount, fetched] = await Promise.all([
      counted ? undefined : this.count(table, spaceId, tsquery, candidates),
      (async (): Promise<{ hit: SearchHit; phase: 0 | 1 }[]> => {
        if (phase === 1) return (await fetchRest(lastId as string)).map((hit) => ({ hit, phase: 1 as const }));
        const rows = await fetchRanked();
        matches = rows[0]?.matches;
        const ranked = rows.map(({ pool, matches: _matches, ...hit }) => ({ hit, pool, phase: 0 as const }));
        if (ranked.length > list.limit || options.rankedOnly) return ranked;
        // The candidates are used up: when the body matches filled the bound, other matches may follow.
        const poolFull = ranked.length > 0 ? ranked[0].pool >= bound : cursor !== undefined;
        if (!poolFull) return ranked;
        const rest = (await fetchRest(null)).map((hit) => ({ hit, phase: 1 as const }));
        return [...ranked, ...rest];
      })(),
    ]);
    // No row, no count in it: nothing after the cursor, and the count is asked on its own.
    const count =
      separateCount ??
      (matches === undefined ? await this.count(table, spaceId, tsquery, candidates) : await this.estimateAbove(table, spaceId, tsquery, matches, candidates));
    const hits = fetched.map(({ hit, phase: from }) => ({ hit: { ...hit, score: Number(hit.score) }, phase: from }));
    const items = hits.slice(0, list.limit);
    const page: RankedPage = { items: items.map(({ hit }) => hit), count, first: rank + 1 };
    if (hits.length > list.limit) {
      const { hit: last, phase: lastPhase } = items[items.length - 1];
      page.next = { page: encodeCursor(LIST, [last.score, last.pageId, rank + items.length, bound, lastPhase]) };
    }
    return page;
  }

  /**
   * How many pages match: counted up to `exactUpTo`, and above that the planner's estimate (from
   * the column's word statistics), so a word on every page of a huge space is not counted row by row.
   */
  private async count(table: string, spaceId: string, tsquery: string, exactUpTo: number): Promise<number> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM (SELECT 1 FROM ${table} WHERE space_id = $1 AND tsv @@ $2::tsquery LIMIT $3) m`,
      [spaceId, tsquery, exactUpTo + 1],
    );
    return this.estimateAbove(table, spaceId, tsquery, count, exactUpTo);
  }

  /** `count` (matches counted up to `exactUpTo + 1`) when exact, else the planner's estimate. */
  private async estimateAbove(table: string, spaceId: string, tsquery: string, count: number, exactUpTo: number): Promise<number> {
    if (count <= exactUpTo) return count;
    const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[] = await this.dataSource.query(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE space_id = $1 AND tsv @@ $2::tsquery`,
      [spaceId, tsquery],
    );
    return Math.max(count, Math.round(plan[0].Plan['Plan Rows']));
  }

  /**
   * The query as a tsquery (empty: nothing to search) and the table holding each space's rows (its
   * own after a large rebuild, else null: search_pages), in one round trip for several spaces.
   */
  async parse(spaceIds: string[], query: string): Promise<Map<string, ParsedSearch>> {
    const rows = await queryPrepared<{ tsquery: string; space_id: string; table: string | null }>(this.dataSource, 'quire_search_parse', PARSE_SQL, [
      query,
      spaceIds,
    ]);
    return new Map(rows.map((row) => [row.space_id, { tsquery: row.tsquery, table: row.table }]));
  }

  /**
   * The sections of `documentIds` that match, best first. Only the sections of the pages a search
   * returns are turned into lexemes, here: at most a page of results' worth.
   */
  async sections(documentIds: string[], query: string): Promise<SectionHit[]> {
    if (documentIds.length === 0) return [];
    const rows = await queryPrepared<SectionHit>(this.dataSource, 'quire_search_sections', SECTIONS_SQL, [documentIds, query]);
    return rows.map((row) => ({ ...row, score: Number(row.score) }));
  }
}
