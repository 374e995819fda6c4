import { BadRequestException, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { AppConfig } from '../../../config/app-config';
import { SpaceAccessService } from '../../access/space-access.service';
import { User } from '../../users/user.entity';
import { CONTENT_POLICY } from '../content.policy';
import { ContentRepository } from '../content.repository';
import { ImportContentDto } from '../dto/import-content.dto';
import { fileRef, pageRef } from '../markdown/markdown';
import { RevisionLifecycleService } from '../revision-lifecycle.service';
import { documentPage, DraftFile, DraftPage, RevisionWriter } from '../revision-writer';
import { htmlToMarkdown } from './html-to-markdown';
import { CrawlResult, SiteCrawler, StartPageError } from './site-crawler';
import { inScope, normalizePageUrl, planTree, spacePathOf } from './site-scope';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessService,
    private readonly client: OutboundHttpClient,
    private readonly config: AppConfig,
    private readonly content: ContentRepository,
    private readonly writer: RevisionWriter,
    private readonly lifecycle: RevisionLifecycleService,
  ) {}

  async import(user: User, spaceId: string, dto: ImportContentDto): Promise<ImportResult> {
    await this.access.require(user, spaceId, CONTENT_POLICY.import);
    const started = Date.now();
    const crawl = await this.crawl(spaceId, dto.url);
    const converted = this.convert(crawl);
    const result = await this.dataSource.transaction((em) => this.write(user, spaceId, crawl, converted, em));
    this.logger.log(
      `space ${spaceId}: imported ${result.importedResources} of ${result.totalResources} resources from ${dto.url} in ${Date.now() - started} ms` +
        (crawl.stopped ? ` (stopped early: ${crawl.stopped} bound reached)` : ''),
    );
    return result;
  }

  private async crawl(spaceId: string, url: string): Promise<CrawlResult> {
    const crawler = new SiteCrawler(this.client, this.config.contentImport, (fetched, queued) =>
      this.logger.log(`space ${spaceId}: ${fetched} pages fetched, ${queued} queued`),
    );
    try {
      return await crawler.crawl(url);
    } catch (error) {
      if (error instanceof StartPageError) throw new BadRequestException(`url: ${error.message}`);
      throw error;
    }
  }

  /** Ids for every imported page and image, and each page's markdown pointing at them. */
  private convert(crawl: CrawlResult) {
    const pageIds = new Map(crawl.pages.map((page) => [page.url, newId()]));
    const fileIds = new Map([...crawl.images.keys()].map((url) => [url, newId()]));
    const rewriteLink = (href: string): string => {
      const key = normalizePageUrl(href);
      if (!key) return href;
      const hash = new URL(href).hash;
      const pageId = pageIds.get(key);
      if (pageId) return pageRef(pageId, hash.slice(1) || undefined);
      // A page of the site that was not imported (missing, blocked, over a bound): a space path that stays broken.
      if (inScope(key, crawl.scope)) return spacePathOf(key, crawl.scope);
      return href;
    };
    const rewriteImage = (src: string): string => {
      const fileId = fileIds.get(src);
      return fileId ? fileRef(fileId) : src;
    };
    const markdown = new Map(crawl.pages.map((page) => [page.url, htmlToMarkdown(page.extracted.mainHtml, rewriteLink, rewriteImage)]));
    return { pageIds, fileIds, markdown };
  }

  private async write(
    user: User,
    spaceId: string,
    crawl: CrawlResult,
    converted: ReturnType<WebsiteImportService['convert']>,
    em: EntityManager,
  ): Promise<ImportResult> {
    const baseId = await this.content.lockActiveRevision(spaceId, em);
    // The space may have been locked (or the caller's rights changed) while the site was crawled.
    await this.access.require(user, spaceId, CONTENT_POLICY.import, { manager: em });
    const base = await this.content.findRevision(spaceId, baseId as string, em);
    // One connection per transaction: its queries run one after the other.
    const baseTree = await this.content.tree(baseId as string, em);
    const baseFiles = await this.content.files(baseId as string, em);
    const baseReusable = await this.content.reusableContents(baseId as string, em);
    const topLevel = baseTree.filter((page) => page.parentId === null);
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
        parentId: entry.parentId,
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

    const revision = await this.writer.write(
      {
        spaceId,
        parents: [baseId as string],
        type: 'edits',
        createdBy: user.id,
        pages: [...carried, ...imported],
        files,
        reusableContents: baseReusable.map(({ revisionId: _revisionId, ...reusable }) => reusable),
        variables: base?.variables ?? {},
      },
      em,
    );
    await this.lifecycle.activate(spaceId, revision.id, em);
    return { revision: revision.id, importedResources: plan.length + crawl.images.size, totalResources: crawl.discovered };
  }
}
