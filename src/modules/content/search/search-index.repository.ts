import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { decodeCursor, encodeCursor } from '../../../common/pagination/cursor';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import type { Page } from '../../../common/pagination/paginate';
import { SEARCH_CONFIG } from '../../space-writes/search-index-writes.repository';
import type { SearchHit, SectionHit } from './search.read-model';

// Weights of D, C, B, A (body C, headings and description B, title A): a title match outranks
// any number of body matches of the same word.
const WEIGHTS = `'{0.01, 0.05, 0.3, 1.0}'`;
// A tsvector holds at most 1 MB; a section's text is matched on its beginning.
const MAX_SECTION_CHARS = 400_000;
const LIST = 'search:score:desc';

/** A page of search hits, and the rank (one-based) of its first hit in the whole ranked list. */
export interface RankedPage extends Page<SearchHit> {
  first: number;
}

/**
 * Queries of the search index (`search_pages`: one row per page of each space's active revision,
 * GIN-indexed twice: `title_tsv` for the title and description, `tsv` for everything). The unit of
 * work writes its rows (`SearchIndexWritesRepository`).
 *
 * What a search costs follows the page of results, not the space: the matches are ranked among a
 * bounded set of candidates, every page whose title or description matches (up to `candidates`),
 * then pages whose body matches (up to `candidates`), in index order. A space with fewer matches
 * than that (most spaces, every test) ranks every match, so the ranking is exact; beyond it, a
 * body-only match outside the first candidates is not ranked, which is the trade for a bounded
 * cost (docs/scaling.md). The bound grows with the depth of the page asked for, so walking the
 * pages reaches every match. `count` is exact up to the bound, and an estimate above it.
 */
@Injectable()
export class SearchIndexRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Matching pages, best first. Ties on score are broken by page id, so the walk is stable. */
  async search(spaceId: string, query: string, list: Pick<ListQueryDto, 'page' | 'limit'>, candidates: number): Promise<RankedPage> {
    // The cursor holds the last hit's score, page id and rank.
    const cursor = list.page ? decodeCursor(list.page, LIST, 3) : undefined;
    const before = cursor ? Number(cursor[2]) : 0;
    if (!Number.isInteger(before) || before < 0) throw new BadRequestException('page: is not a valid page cursor');
    // The query is parsed first and passed on as a constant, so the planner sees how common its
    // words are (a word on most pages is read by a scan that stops at the bound, a rare one by the index).
    const [{ tsquery }]: { tsquery: string }[] = await this.dataSource.query(`SELECT websearch_to_tsquery('${SEARCH_CONFIG}', $1)::text AS tsquery`, [query]);
    if (tsquery === '') return { items: [], count: 0, first: 1 };
    const bound = Math.max(candidates, before + list.limit + 1);
    const [count, rows] = await Promise.all([
      this.count(spaceId, tsquery, candidates),
      this.dataSource.query(
        `WITH titled AS (
           SELECT page_id FROM search_pages WHERE space_id = $1 AND title_tsv @@ $2::tsquery LIMIT $3
         ),
         bodied AS (
           SELECT page_id FROM search_pages WHERE space_id = $1 AND tsv @@ $2::tsquery LIMIT $3
         ),
         ranked AS (
           SELECT sp.page_id, sp.document_id, sp.title, sp.path, sp.description, sp.ancestors, ts_rank(${WEIGHTS}, sp.tsv, $2::tsquery) AS score
           FROM (SELECT page_id FROM titled UNION SELECT page_id FROM bodied) c
           JOIN search_pages sp ON sp.space_id = $1 AND sp.page_id = c.page_id
           -- a title match can still fail the whole query (a word excluded with -word in the body)
           WHERE sp.tsv @@ $2::tsquery
         )
         SELECT page_id AS "pageId", document_id AS "documentId", title, path, description, ancestors, score
         FROM ranked
         ${cursor ? 'WHERE (score, page_id) < ($5::real, $6::text)' : ''}
         ORDER BY score DESC, page_id DESC
         LIMIT $4`,
        cursor ? [spaceId, tsquery, bound, list.limit + 1, cursor[0], cursor[1]] : [spaceId, tsquery, bound, list.limit + 1],
      ) as Promise<SearchHit[]>,
    ]);
    const hits = rows.map((hit) => ({ ...hit, score: Number(hit.score) }));
    const items = hits.slice(0, list.limit);
    const page: RankedPage = { items, count, first: before + 1 };
    if (hits.length > list.limit) {
      const last = items[items.length - 1];
      page.next = { page: encodeCursor(LIST, [last.score, last.pageId, before + items.length]) };
    }
    return page;
  }

  /**
   * How many pages match: counted up to `exactUpTo`, and above that the planner's estimate (from
   * the column's word statistics), so a word on every page of a huge space is not counted row by row.
   */
  private async count(spaceId: string, tsquery: string, exactUpTo: number): Promise<number> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM (SELECT 1 FROM search_pages WHERE space_id = $1 AND tsv @@ $2::tsquery LIMIT $3) m`,
      [spaceId, tsquery, exactUpTo + 1],
    );
    if (count <= exactUpTo) return count;
    const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[] = await this.dataSource.query(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM search_pages WHERE space_id = $1 AND tsv @@ $2::tsquery`,
      [spaceId, tsquery],
    );
    return Math.max(count, Math.round(plan[0].Plan['Plan Rows']));
  }

  /**
   * The sections of `documentIds` that match, best first. Only the sections of the pages a search
   * returns are turned into lexemes, here: at most a page of results' worth.
   */
  async sections(documentIds: string[], query: string): Promise<SectionHit[]> {
    if (documentIds.length === 0) return [];
    const rows: SectionHit[] = await this.dataSource.query(
      `SELECT s.document_id AS "documentId", s.anchor, s.heading, s.body, ts_rank(${WEIGHTS}, v.tsv, q) AS score
       FROM document_sections s
       CROSS JOIN websearch_to_tsquery('${SEARCH_CONFIG}', $2) q
       CROSS JOIN LATERAL (
         SELECT setweight(to_tsvector('${SEARCH_CONFIG}', s.heading), 'B') ||
                setweight(to_tsvector('${SEARCH_CONFIG}', left(s.body, ${MAX_SECTION_CHARS})), 'C') AS tsv
       ) v
       WHERE s.document_id = ANY($1) AND v.tsv @@ q
       ORDER BY score DESC, s.position`,
      [documentIds, query],
    );
    return rows.map((row) => ({ ...row, score: Number(row.score) }));
  }
}
