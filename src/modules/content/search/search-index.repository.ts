import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Page, paginate } from '../../../common/pagination/paginate';
import { SEARCH_CONFIG } from '../../space-writes/search-index-writes.repository';
import type { SearchHit, SectionHit } from './search.read-model';
import { SearchPage } from './search-page.entity';

// Weights of D, C, B, A (body C, headings and description B, title A): a title match outranks
// any number of body matches of the same word.
const WEIGHTS = `'{0.01, 0.05, 0.3, 1.0}'`;
const QUERY = `websearch_to_tsquery('${SEARCH_CONFIG}', :query)`;
const SCORE = `ts_rank(${WEIGHTS}, sp.tsv, ${QUERY})`;

/**
 * Queries of the search index (`search_pages`: one row per page of each space's active revision,
 * with a weighted tsvector, GIN-indexed). The unit of work writes its rows (`SearchIndexWritesRepository`).
 */
@Injectable()
export class SearchIndexRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Matching pages, best first; `count` is every match. Ties on score are broken by page id, so the walk is stable. */
  search(spaceId: string, query: string, list: ListQueryDto): Promise<Page<SearchHit>> {
    return paginate<SearchHit>(this.matches(spaceId, query), list, {
      list: 'search:score:desc',
      columns: [SCORE, 'sp.page_id'],
      direction: 'DESC',
      keyOf: (hit) => [hit.score, hit.pageId],
      fetch: async (rows) =>
        (
          await rows
            .select(['sp.page_id AS "pageId"', 'sp.document_id AS "documentId"', 'sp.title AS title', 'sp.path AS path'])
            .addSelect(['sp.description AS description', 'sp.ancestors AS ancestors', `${SCORE} AS score`])
            .getRawMany<SearchHit>()
        ).map((hit) => ({ ...hit, score: Number(hit.score) })),
    });
  }

  /** How many matches rank before `hit`: its one-based rank is this plus one. */
  async countBefore(spaceId: string, query: string, hit: SearchHit): Promise<number> {
    return this.matches(spaceId, query).andWhere(`(${SCORE}, sp.page_id) > (:score, :pageId)`, { score: hit.score, pageId: hit.pageId }).getCount();
  }

  /** The sections of `documentIds` that match, best first. */
  async sections(documentIds: string[], query: string): Promise<SectionHit[]> {
    if (documentIds.length === 0) return [];
    const rows: SectionHit[] = await this.dataSource.query(
      `SELECT s.document_id AS "documentId", s.anchor, s.heading, s.body,
              ts_rank(${WEIGHTS}, s.tsv, q) AS score
       FROM document_sections s, websearch_to_tsquery('${SEARCH_CONFIG}', $2) q
       WHERE s.document_id = ANY($1) AND s.tsv @@ q
       ORDER BY score DESC, s.position`,
      [documentIds, query],
    );
    return rows.map((row) => ({ ...row, score: Number(row.score) }));
  }

  private matches(spaceId: string, query: string) {
    return this.dataSource.manager.createQueryBuilder(SearchPage, 'sp').where('sp.space_id = :spaceId', { spaceId }).andWhere(`sp.tsv @@ ${QUERY}`, { query });
  }
}
