import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { AppConfig } from '../../../config/app-config';
import { SpaceAccess } from '../../access/space-access.service';
import { SpaceUnitOfWork, SpaceWrite } from '../../space-writes/space-unit-of-work';
import { User } from '../../users/user.entity';
import { CONTENT_POLICY } from '../content.policy';
import { ContentRepository } from '../content.repository';
import { ImportContentDto } from '../dto/import-content.dto';
import { documentPage, DraftFile, DraftPage, RevisionWriter } from '../revision-writer';
import { CrawlResult, SiteCrawler, StartPageError } from './site-crawler';
import { convertPageOffLoop } from '../text-work/text-workers';
import type { ImportLinkMap } from '../text-work/text.worker';
import { planTree } from './site-scope';
import { contentError } from '../content.errors';

/** A crawled and converted site, ready to be written into any revision (see `prepare`). */
export interface PreparedImport {
  crawl: CrawlResult;
  converted: Awaited<ReturnType<WebsiteImportService['convert']>>;
}

export interface ImportResult {
  revision: string;
  importedResources: number;
  totalResources: number;
}

const MAX_TITLE = 1000;
const MAX_DESCRIPTION = 1000;

/**
 * `POST /content/import` from a website: crawl (outside any transaction: it can take minutes),
 * convert each page's main content to markdown with links and images rewritten to the space's
 * own pages and files, then write one new revision on top of the active one and activate it, in
 * one transaction. The imported pages are added after the space's existing top-level pages.
 */
@Injectable()
export class WebsiteImportService {
  private readonly logger = new Logger('WebsiteImport');

  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly client: OutboundHttpClient,
    private readonly config: AppConfig,
    private readonly content: ContentRepository,
    private readonly writer: RevisionWriter,
  ) {}

  /** `access` is the route's (`@SpaceAction(CONTENT_POLICY.import)`); the write checks it again under the space's lock. */
  async import(user: User, access: SpaceAccess, dto: ImportContentDto): Promise<ImportResult> {
    const spaceId = access.space.id;
    const started = Date.now();
    const crawl = await this.crawl(spaceId, dto.url);
    const converted = await this.convert(crawl);
    // The space may have been locked (or the caller's rights changed) while the site was crawled: the unit of work checks again.
    const result = await this.spaceWrites.run(spaceId, user, CONTENT_POLICY.import, (write) => this.write(user, write, crawl, converted));
    this.logger.log(
      `space ${spaceId}: imported ${result.importedResources} of ${result.totalResources} resources from ${dto.url} in ${Date.now() - started} ms` +
        (crawl.stopped ? ` (stopped early: ${crawl.stopped} bound reached)` : ''),
    );
    return result;
  }

  /** Crawls and converts a site, outside any transaction, for a write into another line of revisions (a change request). */
  async prepare(spaceId: string, dto: ImportContentDto): Promise<PreparedImport> {
    const crawl = await this.crawl(spaceId, dto.url);
    return { crawl, converted: await this.convert(crawl) };
  }

  /**
   * The pages and files of `baseId` with the prepared import added: after the top-level pages, or
   * after the children of `underPageId` when given. The caller writes the revision.
   */
  async buildOn(spaceId: string, baseId: string, prepared: PreparedImport, em: EntityManager, underPageId?: string) {
    const built = await this.build(spaceId, baseId, prepared.crawl, prepared.converted, em, underPageId);
    return { ...built, importedResources: built.pages.imported + prepared.crawl.images.size, totalResources: prepared.crawl.discovered };
  }

  private async crawl(spaceId: string, url: string): Promise<CrawlResult> {
    const crawler = new SiteCrawler(this.client, this.config.contentImport, (fetched, queued) =>
      this.logger.log(`space ${spaceId}: ${fetched} pages fetched, ${queued} queued`),
    );
    try {
      return await crawler.crawl(url);
    } catch (error) {
      if (error instanceof StartPageError) throw contentError('content.import_bad_url', `url: ${error.message}`);
      throw error;
    }
  }

  /** Ids for every imported page and image, and each page's markdown pointing at them (converted in the worker pool). */
  private async convert(crawl: CrawlResult) {
    const pageIds = new Map(crawl.pages.map((page) => [page.url, newId()]));
    const fileIds = new Map([...crawl.images.keys()].map((url) => [url, newId()]));
    const map: ImportLinkMap = { pages: [...pageIds], files: [...fileIds], scope: crawl.scope };
    const converted = await Promise.all(crawl.pages.map(async (page) => [page.url, await convertPageOffLoop(page.extracted.mainHtml, map)] as const));
    return { pageIds, fileIds, markdown: new Map(converted) };
  }

  /** One new revision on top of the active one: its pages and files, then the imported ones. */
  private async write(
    user: User,
    write: SpaceWrite,
    crawl: CrawlResult,
    converted: Awaited<ReturnType<WebsiteImportService['convert']>>,
  ): Promise<ImportResult> {
    let imported = 0;
    const revision = await write.commitRevision(async (baseId, em) => {
      const { pages, files, reusableContents, variables } = await this.build(write.space.id, baseId, crawl, converted, em);
      imported = pages.imported;
      return this.writer.write(
        { spaceId: write.space.id, parents: [baseId], type: 'edits', createdBy: user.id, pages: pages.all, files, reusableContents, variables },
        em,
      );
    });
    return { revision: revision.id, importedResources: imported + crawl.images.size, totalResources: crawl.discovered };
  }

  private async build(
    spaceId: string,
    baseId: string,
    crawl: CrawlResult,
    converted: Awaited<ReturnType<WebsiteImportService['convert']>>,
    em: EntityManager,
    underPageId: string | null = null,
  ) {
    const base = await this.content.findRevision(spaceId, baseId, em);
    // One connection per transaction: its queries run one after the other.
    const baseTree = await this.content.tree(baseId, em);
    const baseFiles = await this.content.files(baseId, em);
    const baseReusable = await this.content.reusableContents(baseId, em);
    const topLevel = baseTree.filter((page) => page.parentId === underPageId);
    const plan = planTree(
      crawl.pages.map((page) => ({ url: page.url, title: page.extracted.title })),
      crawl.scope,
      new Set(topLevel.map((page) => page.slug).filter((slug): slug is string => slug !== null)),
      topLevel.reduce((max, page) => Math.max(max, page.position + 1), 0),
      (url) => converted.pageIds.get(url) as string,
    );
    const extracted = new Map(crawl.pages.map((page) => [page.url, page.extracted]));

    const carried: DraftPage[] = baseTree.map(({ revisionId: _revisionId, path: _path, ...page }) => page);
    const imported: DraftPage[] = plan.map((entry) =>
      documentPage({
        pageId: entry.pageId,
        parentId: entry.parentId ?? underPageId,
        position: entry.position,
        title: entry.title.slice(0, MAX_TITLE),
        slug: entry.slug,
        description: extracted.get(entry.url)?.description?.slice(0, MAX_DESCRIPTION) ?? null,
        markdown: converted.markdown.get(entry.url) ?? '',
      }),
    );
    const files: DraftFile[] = [
      ...baseFiles.map(({ revisionId: _revisionId, ...file }) => file),
      ...[...crawl.images.values()].map((image) => ({
        fileId: converted.fileIds.get(image.url) as string,
        name: image.name,
        contentType: image.contentType,
        size: image.data.length,
        width: image.width,
        height: image.height,
        data: image.data,
      })),
    ];

    return {
      pages: { all: [...carried, ...imported], imported: plan.length },
      files,
      reusableContents: baseReusable.map(({ revisionId: _revisionId, ...reusable }) => reusable),
      variables: base?.variables ?? {},
    };
  }
}
