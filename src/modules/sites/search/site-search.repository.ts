import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SearchPlace } from './site-search.read-model';

/** The queries of site search beside the search index's own (`SearchIndexRepository`). */
@Injectable()
export class SiteSearchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The site spaces of a site whose space is not deleted, with their section's default flag and conditions. */
  places(siteId: string): Promise<SearchPlace[]> {
    return this.dataSource.query(
      `SELECT ss.id, ss.space_id AS "spaceId", sp.title AS "spaceTitle", sp.organization_id AS "organizationId", sp.revision_id AS "revisionId",
              ss.is_default AS "isDefault", ss.section_id AS "sectionId", coalesce(sec.is_default, false) AS "sectionDefault",
              ss.condition, sec.condition AS "sectionCondition"
       FROM site_spaces ss
       JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL
       LEFT JOIN site_sections sec ON sec.id = ss.section_id
       WHERE ss.site_id = $1
       ORDER BY sec.position NULLS FIRST, ss.position, ss.id`,
      [siteId],
    );
  }
}
