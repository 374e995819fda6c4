import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { bareLinkEmbed, LinkEmbedJson, linkEmbedFromHtml, linkEmbedOfFile } from './embed-html';
import { EmbedsRepository } from './embeds.repository';

/** A fetched embed stays fresh a day; a failed fetch (offline, 404, refused) is tried again after ten minutes. */
export const EMBED_FRESH_MS = 24 * 3600_000;
export const EMBED_RETRY_MS = 10 * 60_000;
/** A page's head is all an embed needs; a reader's page waits on this call, so it is short. */
const MAX_BYTES = 512 * 1024;
const TIMEOUT_MS = 5_000;

/**
 * Embeds of URLs in a space's pages (`getEmbedByUrlInSpace`): fetched through the SSRF-guarded
 * outbound client (private addresses refused unless `OUTBOUND_ALLOW_PRIVATE=true`), cached in
 * `embed_cache`. When the URL cannot be fetched the answer is a bare link embed, never an error.
 */
@Injectable()
export class EmbedsService {
  private readonly logger = new Logger(EmbedsService.name);

  constructor(
    private readonly outbound: OutboundHttpClient,
    private readonly cache: EmbedsRepository,
  ) {}

  async embed(url: string): Promise<LinkEmbedJson> {
    const hash = createHash('sha256').update(url).digest('hex');
    const cached = await this.cache.find(hash);
    if (cached && cached.ageMs < (cached.ok ? EMBED_FRESH_MS : EMBED_RETRY_MS)) return cached.embed;
    const { embed, ok } = await this.fetch(url);
    await this.cache.save(hash, url, embed, ok);
    return embed;
  }

  private async fetch(url: string): Promise<{ embed: LinkEmbedJson; ok: boolean }> {
    try {
      const response = await this.outbound.get({
        url,
        maxBytes: MAX_BYTES,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.status < 200 || response.status >= 300) return { embed: bareLinkEmbed(url), ok: false };
      const html = response.contentType === 'text/html' || response.contentType === 'application/xhtml+xml';
      return { embed: html ? linkEmbedFromHtml(response.url, response.body.toString('utf8')) : linkEmbedOfFile(response.url), ok: true };
    } catch (error) {
      // Offline, refused by the address guard, too large, too slow: the reader still gets a link.
      this.logger.debug(`embed of ${new URL(url).host} not fetched: ${(error as Error).message}`);
      return { embed: bareLinkEmbed(url), ok: false };
    }
  }
}
