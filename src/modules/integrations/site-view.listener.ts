import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { InsightEventRow } from '../insights/insights.read-model';
import type { SiteViewsListener } from '../insights/site-views.port';
import { EventsService } from './events.service';
import { InstallationsRepository } from './installations.repository';

/**
 * `site_view`: each page view a site records (insights ingest) becomes one event per active
 * installation covering the site, queued in the transaction that stores the views. The visitor's
 * address is not kept by insights, so `visitor.ip` is empty; cookies are never stored either.
 */
@Injectable()
export class SiteViewListener implements SiteViewsListener {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly events: EventsService,
  ) {}

  async viewed(site: { id: string; organizationId: string }, views: InsightEventRow[], em: EntityManager): Promise<void> {
    const installed = await this.installations.onSite(site.id, site.organizationId, em);
    for (const { installationId, integrationId } of installed) {
      for (const view of views) {
        await this.events.emit({ integrationId, installationId, payload: siteViewPayload(installationId, site.id, view) }, em);
      }
    }
  }
}

function siteViewPayload(installationId: string, siteId: string, view: InsightEventRow): Record<string, unknown> & { type: string } {
  return {
    type: 'site_view',
    installationId,
    siteId,
    ...(view.siteSpace ? { siteSpaceId: view.siteSpace } : {}),
    ...(view.spaceId ? { spaceId: view.spaceId } : {}),
    ...(view.pageId ? { pageId: view.pageId } : {}),
    visitor: {
      anonymousId: view.visitorId,
      cookies: {},
      userAgent: view.userAgent ?? '',
      ip: '',
      ...(view.language ? { language: view.language } : {}),
    },
    url: view.url,
    referrer: view.referrer ?? '',
  };
}
