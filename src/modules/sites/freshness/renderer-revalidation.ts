import { createHmac } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../../config/app-config';
import { JobsService } from '../../../jobs/jobs.service';
import { SpaceUnitOfWork } from '../../space-writes/space-unit-of-work';
import { SiteWrites } from '../site-writes';
import { SitesRepository } from '../sites.repository';
import { siteCacheTag, spaceCacheTag } from './cache-tags';
import { REVALIDATE_RENDERER } from './renderer-revalidation.job';

/** The renderer's header: hex HMAC-SHA256 of the raw body under its GITBOOK_SECRET. */
export const SIGNATURE_HEADER = 'x-gitbook-signature';
/** The renderer's revalidation route (a Next.js route handler its middleware lets through). */
export const REVALIDATE_PATH = '/~gitbook/revalidate';

export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Freshness of published sites in GitBook's renderer: when what a published site shows changes (a
 * new active revision of a space it shows; a write to the site: customization, structure, settings,
 * publish, unpublish), a job posts `{"tags": [...]}` to the renderer's `/~gitbook/revalidate`, signed
 * the way it checks (`x-gitbook-signature`). Without RENDERER_URL and RENDERER_SECRET nothing is
 * queued and nothing is sent.
 */
@Injectable()
export class RendererRevalidation implements OnModuleInit {
  constructor(
    private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly siteWrites: SiteWrites,
    private readonly sites: SitesRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(REVALIDATE_RENDERER, ({ tags }) => this.send(tags));
    this.spaceWrites.onRevisionActivated(async ({ spaceId }, em) => {
      if (!this.config.renderer) return;
      const sites = await this.sites.publishedSitesShowing(spaceId, em);
      if (sites.length > 0) await this.queue([spaceCacheTag(spaceId), ...sites.map((id) => siteCacheTag(id))], em);
    });
    this.siteWrites.onSiteWritten(async ({ siteId, wasPublished }, em) => {
      if (!this.config.renderer) return;
      if (wasPublished || (await this.sites.isPublished(siteId, em))) await this.queue([siteCacheTag(siteId)], em);
    });
  }

  private async queue(tags: string[], em: EntityManager): Promise<void> {
    await this.jobs.send(REVALIDATE_RENDERER, { tags }, { manager: em });
  }

  /** Posts the tags; a refusal or an unreachable renderer fails the attempt (retried, then dead-lettered). */
  async send(tags: string[]): Promise<void> {
    const renderer = this.config.renderer;
    if (!renderer || tags.length === 0) return;
    const body = JSON.stringify({ tags });
    const res = await fetch(`${renderer.url}${REVALIDATE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(body, renderer.secret) },
      body,
      signal: AbortSignal.timeout(this.config.outbound.timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`The renderer answered ${res.status} to a revalidation`);
  }
}
