import { imageSize } from 'image-size';
import robotsParser from 'robots-parser';
import { OutboundError } from '../../../common/outbound/outbound-error';
import { OutboundHttpClient, OutboundResponse } from '../../../common/outbound/outbound-http.client';
import { DomainError } from '../../../common/errors/domain-error';
import { extractPageOffLoop } from '../text-work/text-workers';
import { ExtractedPage, PageTooDeepError } from './html-extract';
import { mapPool } from './pool';
import { ImportScope, inScope, normalizePageUrl, scopeOf } from './site-scope';

export interface CrawlBounds {
  maxPages: number;
  /** Link hops from the start page. */
  maxDepth: number;
  /** Bytes downloaded in all (pages, robots.txt and images). */
  maxBytes: number;
  timeoutMs: number;
  concurrency: number;
}

export interface CrawledPage {
  /** Crawl key (normalized URL). */
  url: string;
  extracted: ExtractedPage;
}

export interface DownloadedImage {
  url: string;
  name: string;
  contentType: string;
  data: Buffer;
  width: number | null;
  height: number | null;
}

export interface CrawlResult {
  scope: ImportScope;
  pages: CrawledPage[];
  images: Map<string, DownloadedImage>;
  /** Pages and images found in scope, imported or not (blocked, failed, over a bound). */
  discovered: number;
  /** Why the crawl stopped before seeing everything, if it did. */
  stopped?: 'pages' | 'bytes' | 'time';
}

/** The start page cannot be imported: the whole import fails with this message (400). */
export class StartPageError extends Error {}

export const ROBOTS_AGENT = 'QuireImporter';
const HTML = new Set(['text/html', 'application/xhtml+xml']);
const MAX_PAGE_BYTES = 10 * 1024 * 1024;
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Crawls a website breadth first from a start page: same origin, at or under the start path,
 * allowed by robots.txt, within the bounds (pages, depth, bytes, time), a few requests at a time.
 * Each level is fetched concurrently but read in discovery order, so the same site always gives
 * the same pages in the same order. Every request goes through the guarded outbound client.
 */
export class SiteCrawler {
  private bytes = 0;
  private readonly deadline: AbortSignal;
  private stopped?: CrawlResult['stopped'];

  constructor(
    private readonly client: OutboundHttpClient,
    private readonly bounds: CrawlBounds,
    private readonly progress: (fetched: number, queued: number) => void = () => undefined,
  ) {
    this.deadline = AbortSignal.timeout(bounds.timeoutMs);
  }

  async crawl(startUrl: string): Promise<CrawlResult> {
    const robots = await this.robots(new URL(startUrl).origin);
    if (robots && robots.isAllowed(startUrl, ROBOTS_AGENT) === false)
      throw new StartPageError(`robots.txt of ${new URL(startUrl).origin} does not allow importing ${startUrl}`);
    const start = await this.fetchStart(startUrl);
    const scope = scopeOf(new URL(start.url));
    let extracted: ExtractedPage;
    try {
      extracted = await extractPageOffLoop(start.body.toString('utf8'), start.url);
    } catch (error) {
      if (error instanceof PageTooDeepError) throw new StartPageError(error.message);
      throw error;
    }
    const startPage: CrawledPage = { url: normalizePageUrl(start.url) as string, extracted };

    const pages = [startPage];
    const fetched = new Set([startPage.url]);
    const seen = new Set([startPage.url, normalizePageUrl(startUrl)]);
    let discovered = 1;
    const enqueue = (links: string[], into: string[]) => {
      for (const link of links) {
        const key = normalizePageUrl(link);
        if (!key || seen.has(key) || !inScope(key, scope)) continue;
        seen.add(key);
        discovered++;
        // Fetch the URL as linked (a trailing slash can matter to the server), minus its fragment.
        if (!robots || robots.isAllowed(link, ROBOTS_AGENT) !== false) into.push(link.split('#')[0]);
      }
    };

    let level: string[] = [];
    enqueue(startPage.extracted.links, level);
    for (let depth = 1; level.length > 0 && depth <= this.bounds.maxDepth; depth++) {
      if (this.outOfBudget()) break;
      const room = this.bounds.maxPages - pages.length;
      if (room <= 0) {
        this.stopped = 'pages';
        break;
      }
      const batch = level.slice(0, room);
      if (batch.length < level.length) this.stopped = 'pages';
      const results = await mapPool(batch, this.bounds.concurrency, (url) => this.fetchPage(url, scope));
      const next: string[] = [];
      for (const page of results) {
        if (!page || fetched.has(page.url)) continue;
        fetched.add(page.url);
        pages.push(page);
        if (depth < this.bounds.maxDepth) enqueue(page.extracted.links, next);
      }
      this.progress(pages.length, next.length);
      level = next;
    }

    const imageUrls = [...new Set(pages.flatMap((page) => page.extracted.images))].filter(
      (url) => !robots || new URL(url).origin !== scope.origin || robots.isAllowed(url, ROBOTS_AGENT) !== false,
    );
    discovered += imageUrls.length;
    const images = new Map<string, DownloadedImage>();
    const downloads = await mapPool(imageUrls, this.bounds.concurrency, (url) => this.fetchImage(url));
    for (const image of downloads) if (image) images.set(image.url, image);
    return { scope, pages, images, discovered, stopped: this.stopped };
  }

  private outOfBudget(): boolean {
    if (this.deadline.aborted) this.stopped = 'time';
    else if (this.bytes >= this.bounds.maxBytes) this.stopped = 'bytes';
    else return false;
    return true;
  }

  private async get(url: string, accept: string, cap: number): Promise<OutboundResponse> {
    const response = await this.client.get({ url, accept, maxBytes: Math.max(0, Math.min(cap, this.bounds.maxBytes - this.bytes)), signal: this.deadline });
    this.bytes += response.body.length;
    return response;
  }

  private async robots(origin: string) {
    try {
      const response = await this.get(`${origin}/robots.txt`, 'text/plain', 512 * 1024);
      return response.status === 200 ? robotsParser(`${origin}/robots.txt`, response.body.toString('utf8')) : null;
    } catch {
      // No robots.txt we can read: nothing is disallowed (a bad start URL fails on its own fetch).
      return null;
    }
  }

  private async fetchStart(url: string): Promise<OutboundResponse> {
    let response: OutboundResponse;
    try {
      response = await this.get(url, 'text/html,application/xhtml+xml', MAX_PAGE_BYTES);
    } catch (error) {
      if (error instanceof OutboundError) throw new StartPageError(`${url} could not be fetched: ${error.message}`);
      throw error;
    }
    if (response.status >= 400) throw new StartPageError(`${url} answered HTTP ${response.status}`);
    if (!HTML.has(response.contentType)) throw new StartPageError(`${url} is not an HTML page (content type ${response.contentType || 'none'})`);
    return response;
  }

  /** A page, or null when it fails, is not HTML, or redirects out of scope: the crawl goes on without it. */
  private async fetchPage(url: string, scope: ImportScope): Promise<CrawledPage | null> {
    if (this.outOfBudget()) return null;
    try {
      const response = await this.get(url, 'text/html,application/xhtml+xml', MAX_PAGE_BYTES);
      const key = normalizePageUrl(response.url);
      if (response.status >= 400 || !HTML.has(response.contentType) || !key || !inScope(key, scope)) return null;
      return { url: key, extracted: await extractPageOffLoop(response.body.toString('utf8'), response.url) };
    } catch (error) {
      // A page too deep or too slow to read is skipped (the start page's refuses the import).
      if (error instanceof OutboundError || error instanceof PageTooDeepError || (error instanceof DomainError && error.code === 'content.text_time_limit'))
        return null;
      throw error;
    }
  }

  private async fetchImage(url: string): Promise<DownloadedImage | null> {
    if (this.outOfBudget()) return null;
    try {
      const response = await this.get(url, 'image/*', MAX_IMAGE_BYTES);
      if (response.status >= 400 || !response.contentType.startsWith('image/')) return null;
      let size: { width?: number; height?: number } = {};
      try {
        size = imageSize(response.body);
      } catch {
        // Not a format image-size reads (or a broken image): stored without dimensions.
      }
      const name = decodeURIComponent(new URL(response.url).pathname.split('/').pop() || 'image').slice(0, 255) || 'image';
      return { url, name, contentType: response.contentType, data: response.body, width: size.width ?? null, height: size.height ?? null };
    } catch (error) {
      if (error instanceof OutboundError || error instanceof URIError) return null;
      throw error;
    }
  }
}
