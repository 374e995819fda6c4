import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Membership } from '../organizations/membership.entity';
import { SiteAction, sitePermissions } from './site.policy';
import { siteError } from './site.errors';
import type { Site } from './site.entity';
import { SitesRepository } from './sites.repository';

const ACTION_WORDS: Record<SiteAction, string> = {
  view: 'view',
  access: 'view',
  edit: 'edit',
  create: 'manage the content structure of',
  admin: 'administer',
  installIntegration: 'install integrations on',
  viewAdaptiveSchema: 'view the adaptive schema of',
  editAdaptiveSchema: 'edit the adaptive schema of',
};

/**
 * Told of every write to a site, inside its transaction, with whether the site was published before
 * the write (the listener reads what it needs after it with `em`). Registered by modules above
 * (`SiteWrites.onSiteWritten`: the renderer's freshness).
 */
export type SiteWrittenListener = (change: { siteId: string; wasPublished: boolean }, em: EntityManager) => Promise<void>;

/**
 * The one way into a site: 404 outside the caller's organization (the route's guard) or for an
 * unknown site, 403 when the site policy refuses the action. Writes lock the site row for their
 * transaction, so concurrent changes to one site's structure (defaults, positions) are serialised.
 */
@Injectable()
export class SiteWrites {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sites: SitesRepository,
  ) {}

  /** 403 unless the caller's role allows `action` on the organization's sites. */
  allow(caller: Pick<Membership, 'role'>, action: SiteAction, siteId: string): void {
    if (!sitePermissions(caller.role)[action]) throw siteError('site.forbidden', `You cannot ${ACTION_WORDS[action]} site ${siteId}`);
  }

  async read(caller: Membership, siteId: string, action: SiteAction = 'view'): Promise<Site> {
    const row = await this.sites.find(caller.organizationId, siteId);
    if (!row) throw siteError('site.not_found', `Site ${siteId} not found`);
    this.allow(caller, action, siteId);
    return row.site;
  }

  private readonly listeners: SiteWrittenListener[] = [];

  /** Adds a listener called after every write to a site, in its transaction (see SiteWrittenListener). */
  onSiteWritten(listener: SiteWrittenListener): void {
    this.listeners.push(listener);
  }

  run<T>(caller: Membership, siteId: string, action: SiteAction, work: (em: EntityManager, site: Site) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (em) => {
      const site = await this.sites.lock(caller.organizationId, siteId, em);
      if (!site) throw siteError('site.not_found', `Site ${siteId} not found`);
      this.allow(caller, action, siteId);
      const wasPublished = site.published;
      const result = await work(em, site);
      for (const listener of this.listeners) await listener({ siteId: site.id, wasPublished }, em);
      return result;
    });
  }
}
