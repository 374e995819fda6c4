import { Injectable, NotFoundException } from '@nestjs/common';
import { SpaceAccess } from '../../access/space-access.service';
import { ContentService, ReadableRevision } from '../content.service';
import { LinksQueryDto } from '../dto/links-query.dto';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { RevisionLink } from '../revision-link.entity';
import { presentLink, presentReference, ReferenceContext } from './link.presenter';
import { LinksRepository } from './links.repository';

/** Links of a space's active revision (all, or one page's) and backlinks of its files. */
@Injectable()
export class LinksService {
  constructor(
    private readonly content: ContentService,
    private readonly links: LinksRepository,
  ) {}

  async list(access: SpaceAccess, query: LinksQueryDto, pageId?: string) {
    const readable = await this.content.open(access);
    const revisionId = readable.revision.id;
    if (pageId && (await this.links.pagesById(revisionId, [pageId])).size === 0) throw new NotFoundException(`Page ${pageId} not found`);
    const [page, stats] = await Promise.all([this.links.list(revisionId, { status: query.status, pageId }, query), this.links.stats(revisionId, pageId)]);
    const context = await this.referenceContext(readable, page.items);
    return {
      ...page,
      items: page.items.map((link) => presentLink(context, link, pageId)),
      // Broken links inside change requests: Quire has no change requests yet, so none.
      stats: { total: stats.total, broken: { total: stats.broken, changeRequest: 0 } },
    };
  }

  async backlinks(access: SpaceAccess, fileId: string, query: ListQueryDto) {
    const { context: base, file } = await this.content.findFile(access, undefined, fileId);
    const page = await this.links.backlinks(base.revisionId, `file:${file.fileId}`, query);
    const context: ReferenceContext = {
      ...base,
      pages: new Map(page.items.map((item) => [item.pageId, item])),
      files: new Map([[file.fileId, file]]),
    };
    return { ...page, items: page.items.map((item) => presentReference(context, { kind: 'page', page: item.pageId })) };
  }

  /** Loads, in two queries, the pages and files a page of links names. */
  private async referenceContext(readable: ReadableRevision, links: RevisionLink[]): Promise<ReferenceContext> {
    const revisionId = readable.revision.id;
    const pageIds = links.flatMap((link) => [...link.pages, ...(link.target.kind === 'page' || link.target.kind === 'anchor' ? [link.target.page] : [])]);
    const fileIds = links.flatMap((link) => (link.target.kind === 'file' ? [link.target.file] : []));
    const [pages, files] = await Promise.all([this.links.pagesById(revisionId, pageIds), this.links.filesById(revisionId, fileIds)]);
    return { ...readable.context, pages, files };
  }
}
