import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { JobsService } from '../../jobs/jobs.service';
import type { InsightEventRow } from '../insights/insights.read-model';
import type { SiteViewsListener } from '../insights/site-views.port';
import { EventsService } from './events.service';
import { DELIVER_EVENT } from './integration-event.job-spec';
import { anyInstalledOnSite, InstallationsRepository } from './installations.repository';
import { FAN_OUT_SITE_VIEWS, SiteViewsBatch } from './site-view.job-spec';

/**
 * `site_view`: each page view a site records (insights ingest) becomes one event per active
 * installation covering the site. The ingest transaction queues ONE job per batch and installation
 * (`integrations.site-views`, carrying the batch's payloads); the job stores the events and their
 * deliveries. The visitor's address is not kept by insights, so `visitor.ip` is empty; cookies are
 * never stored either.
 */
@Injectable()
export class SiteViewListener implements SiteViewsListener, OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly installations: InstallationsRepository,
    private readonly events: EventsService,
    private readonly jobs: JobsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(FAN_OUT_SITE_VIEWS, (batch) => this.fanOut(batch));
  }

  async listeners(site: { id: string; organizationId: string }): Promise<{ installationId: string; integrationId: string }[]> {
    return this.installations.onSite(site.id, site.organizationId);
  }

  listenedSql(site: string, organization: string): string {
    return anyInstalledOnSite(site, organization);
  }

  async viewed(site: { id: string; organizationId: string }, views: InsightEventRow[], em: EntityManager, listeners: unknown[]): Promise<void> {
    for (const { installationId, integrationId } of listeners as { installationId: string; integrationId: string }[]) {
      const payloads = views.map((view) => siteViewPayload(installationId, site.id, view));
      await this.jobs.send(FAN_OUT_SITE_VIEWS, { integrationId, installationId, views: payloads }, { manager: em });
    }
  }

  /** One stored event and delivery job per view, all in one transaction. */
  async fanOut(batch: SiteViewsBatch): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      for (const payload of batch.views) {
        await this.events.emit({ integrationId: batch.integrationId, installationId: batch.installationId, payload }, em);
      }
    });
    this.jobs.wake(DELIVER_EVENT);
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
