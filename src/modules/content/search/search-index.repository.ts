import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Page, paginate } from '../../../common/pagination/paginate';
import { SEARCH_CONFIG } from '../revision-writer';
import type { SearchHit, SectionHit } from './search.read-model';
import { SearchPage } from './search-page.entity';

// Weights of D, C, B, A (body C, headings and description B, title A): a title match outranks
// any number of body matches of the same word.
const WEIGHTS = `'{0.01, 0.05, 0.3, 1.0}'`;
const QUERY = `websearch_to_tsquery('${SEARCH_CONFIG}', :query)`;
const SCORE = `ts_rank(${WEIGHTS}, sp.tsv, ${QUERY})`;
const REBUILD_CHUNK = 5000;

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
 * The search index: one row per page of each space's active revision, with a weighted tsvector
 * (GIN-indexed). Bodies' tsvectors are computed once per distinct document, so rebuilding a
 * space's rows when its active revision changes is a single INSERT … SELECT.
 */
@Injectable()
export class SearchIndexRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Replaces the space's rows with the pages of `revisionId`; run in the transaction that activates it. */
  async rebuild(spaceId: string, revisionId: string, em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM search_pages WHERE space_id = $1`, [spaceId]);
    // Ancestors are worked out here rather than by a recursive query: rows written in this very
    // transaction have no planner statistics yet, and a misestimated recursive join is quadratic.
    const tree: { page_id: string; parent_id: string | null; title: string }[] = await em.query(
      `SELECT page_id, parent_id, title FROM revision_pages WHERE revision_id = $1`,
      [revisionId],
    );
    const ancestors = ancestorTitles(tree);
    const ids = [...ancestors.keys()];
    for (let i = 0; i < ids.length; i += REBUILD_CHUNK) {
      const chunk = ids.slice(i, i + REBUILD_CHUNK);
      await em.query(
        `INSERT INTO search_pages (space_id, page_id, revision_id, document_id, title, path, description, ancestors, tsv)
         SELECT $1, p.page_id, $2, p.document_id, p.title, p.path, coalesce(p.description, ''),
                ARRAY(SELECT jsonb_array_elements_text(a.ancestors)),
                setweight(to_tsvector('${SEARCH_CONFIG}', p.title), 'A') ||
                setweight(to_tsvector('${SEARCH_CONFIG}', coalesce(p.description, '')), 'B') ||
                coalesce(d.tsv, ''::tsvector)
         FROM unnest($3::text[], $4::jsonb[]) AS a (page_id, ancestors)
         JOIN revision_pages p ON p.revision_id = $2 AND p.page_id = a.page_id
         LEFT JOIN documents d ON d.id = p.document_id
         WHERE p.kind = 'document' AND NOT p.no_index`,
        [spaceId, revisionId, chunk, chunk.map((id) => JSON.stringify(ancestors.get(id)))],
      );
    }
  }

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
