import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Page, paginate } from '../../../common/pagination/paginate';
import { RevisionFile } from '../revision-file.entity';
import { RevisionLink, type LinkStatus } from '../revision-link.entity';
import type { PageWithBody } from '../content.read-model';
import type { LinkStats } from './link.read-model';
import { RevisionPage } from '../revision-page.entity';
import { ContentRepository } from '../content.repository';

/** A revision's classified links (one row per distinct target) and the pages behind them. */
@Injectable()
export class LinksRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly content: ContentRepository,
  ) {}

  /** Link targets in key order, optionally of one status and/or appearing on one page. */
  list(revisionId: string, filter: { status?: LinkStatus; pageId?: string }, query: ListQueryDto): Promise<Page<RevisionLink>> {
    const qb = this.scope(revisionId, filter.pageId);
    if (filter.status) qb.andWhere('l.status = :status', { status: filter.status });
    return paginate<RevisionLink>(qb, query, {
      list: filter.pageId ? 'page-links:target' : 'links:target',
      columns: ['l.target_key'],
      direction: 'ASC',
      keyOf: (link) => [link.targetKey],
    });
  }

  async stats(revisionId: string, pageId?: string): Promise<LinkStats> {
    const row = await this.scope(revisionId, pageId)
      .select('count(*)::int', 'total')
      .addSelect(`count(*) FILTER (WHERE l.status = 'broken')::int`, 'broken')
      .getRawOne<LinkStats>();
    return { total: row?.total ?? 0, broken: row?.broken ?? 0 };
  }

  /** Pages of the revision that link to `targetKey`, in page id order. */
  backlinks(revisionId: string, targetKey: string, query: ListQueryDto): Promise<Page<RevisionPage>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(RevisionPage, 'p')
      .where('p.revision_id = :revisionId', { revisionId })
      // An array, not a semi-join: `revision_pages` is a view over layers, probed by key only through a condition on its own columns.
      .andWhere(`p.page_id = ANY(ARRAY(SELECT unnest(l.pages) FROM revision_links l WHERE l.revision_id = :revisionId AND l.target_key = :targetKey))`, {
        targetKey,
      });
    return paginate<RevisionPage>(qb, query, { list: 'backlinks:page', columns: ['p.page_id'], direction: 'ASC', keyOf: (page) => [page.pageId] });
  }

  /** The pages among `pageIds` that exist in the revision, with their bodies, by id. */
  async pagesById(revisionId: string, pageIds: string[]): Promise<Map<string, PageWithBody>> {
    if (pageIds.length === 0) return new Map();
    const pages = await this.dataSource.manager.find(RevisionPage, { where: { revisionId, pageId: In([...new Set(pageIds)]) } });
    return this.withBodies(pages);
  }

  /** Pages with their bodies (`ContentRepository.bodies`: one query for the distinct bodies), by id. */
  async withBodies(pages: RevisionPage[]): Promise<Map<string, PageWithBody>> {
    return new Map((await this.content.withBodies(pages)).map((page) => [page.pageId, page]));
  }

  async filesById(revisionId: string, fileIds: string[]): Promise<Map<string, RevisionFile>> {
    if (fileIds.length === 0) return new Map();
    const files = await this.dataSource.manager.find(RevisionFile, { where: { revisionId, fileId: In([...new Set(fileIds)]) } });
    return new Map(files.map((file) => [file.fileId, file]));
  }

  private scope(revisionId: string, pageId?: string) {
    const qb = this.dataSource.manager.createQueryBuilder(RevisionLink, 'l').where('l.revision_id = :revisionId', { revisionId });
    if (pageId) qb.andWhere(':pageId = ANY(l.pages)', { pageId });
    return qb;
  }
}
