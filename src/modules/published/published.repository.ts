import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Site } from '../sites/site.entity';
import { SitePublishingAuth } from './site-publishing-auth.entity';

/** The queries of URL resolution and of the site-token guard. */
@Injectable()
export class PublishedRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The site whose custom hostname is `hostname`. */
  siteByHostname(hostname: string): Promise<Site | null> {
    return this.dataSource.manager.createQueryBuilder(Site, 's').where('s.hostname = :hostname', { hostname }).getOne();
  }

  /**
   * A site of the organization whose hostname is `organizationHostname`: the one whose basename (or
   * id) is `basename`, else the organization's default site (or, with none, its only site). `matched`
   * tells whether `basename` named it.
   */
  async siteOfOrganization(organizationHostname: string, basename: string | undefined): Promise<{ site: Site; matched: boolean } | null> {
    const rows: { id: string; matched: boolean; is_default: boolean }[] = await this.dataSource.query(
      `SELECT s.id, coalesce(s.basename = $2 OR s.id = $2, false) AS matched, coalesce(s.id = o.default_site_id, false) AS is_default
         FROM organizations o JOIN sites s ON s.organization_id = o.id
        WHERE o.hostname = $1
        ORDER BY 2 DESC, 3 DESC, s.created_at, s.id
        LIMIT 2`,
      [organizationHostname, basename ?? null],
    );
    const chosen = rows[0] && (rows[0].matched || rows[0].is_default || rows.length === 1) ? rows[0] : null;
    if (!chosen) return null;
    const site = await this.dataSource.manager.findOneBy(Site, { id: chosen.id });
    return site ? { site, matched: chosen.matched } : null;
  }

  siteById(siteId: string): Promise<Site | null> {
    return this.dataSource.manager.findOneBy(Site, { id: siteId });
  }

  publishingAuth(siteId: string): Promise<SitePublishingAuth | null> {
    return this.dataSource.manager.findOneBy(SitePublishingAuth, { siteId });
  }

  /** Whether `revisionId` has a page at `path` (slugs from the root joined with `/`). */
  async pageExists(revisionId: string, path: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM revision_pages WHERE revision_id = $1 AND path = $2 LIMIT 1`, [revisionId, path]);
    return rows.length > 0;
  }
}
