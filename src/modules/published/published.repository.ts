import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { secretCipher } from '../../common/crypto/secret-cipher';
import type { SiteSnapshot, SnapshotSection, SnapshotSiteSpace } from './site-snapshot';

/** Which site a snapshot is of: by custom hostname, by organization hostname (and a candidate basename), or by id. */
export type SiteKey = { hostname: string } | { organizationHostname: string; basename?: string } | { siteId: string };

interface SnapshotRow {
  id: string;
  organization_id: string;
  visibility: SiteSnapshot['visibility'];
  published: boolean;
  adaptive_schema: Record<string, unknown> | null;
  matched: boolean;
  sections: (SnapshotSection & { groupId: string | null; position: number })[] | null;
  groups: { id: string; position: number }[] | null;
  site_spaces: SnapshotSiteSpace[] | null;
  private_key: string | null;
  fallback_url: string | null;
  share_key_opens: boolean;
}

/**
 * One round trip for everything resolution needs of a site (the hot path of every page a reader
 * loads): the site found by its address, its sections, groups and site spaces with their spaces' live
 * revisions, its publishing auth, and whether a share key opens it.
 */
const SNAPSHOT = `
WITH site AS (
  SELECT s.id, s.organization_id, s.visibility, s.published, s.adaptive_schema,
         coalesce(s.basename = $3 OR s.id = $3, false) AS matched
    FROM sites s
    LEFT JOIN organizations o ON $2::text IS NOT NULL AND o.id = s.organization_id
   WHERE ($1::text IS NOT NULL AND s.hostname = $1)
      OR ($4::text IS NOT NULL AND s.id = $4)
      OR ($2::text IS NOT NULL AND o.hostname = $2 AND (
            coalesce(s.basename = $3 OR s.id = $3, false)
         OR s.id = o.default_site_id
         OR NOT EXISTS (SELECT 1 FROM sites x WHERE x.organization_id = o.id AND x.id <> s.id)))
   ORDER BY 6 DESC
   LIMIT 1
)
SELECT site.*,
  (SELECT json_agg(json_build_object('id', c.id, 'path', c.path, 'condition', c.condition, 'isDefault', c.is_default,
                                     'groupId', c.group_id, 'position', c.position) ORDER BY c.position, c.id)
     FROM site_sections c WHERE c.site_id = site.id) AS sections,
  (SELECT json_agg(json_build_object('id', g.id, 'position', g.position)) FROM site_section_groups g WHERE g.site_id = site.id) AS groups,
  (SELECT json_agg(json_build_object('id', ss.id, 'sectionId', ss.section_id, 'spaceId', ss.space_id, 'revisionId', sp.revision_id,
                                     'path', ss.path, 'condition', ss.condition, 'isDefault', ss.is_default) ORDER BY ss.position, ss.id)
     FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL AND sp.organization_id = site.organization_id
    WHERE ss.site_id = site.id) AS site_spaces,
  a.private_key, a.fallback_url,
  ($5::text IS NOT NULL AND EXISTS (SELECT 1 FROM site_share_links l WHERE l.site_id = site.id AND l.key = $5 AND l.active)) AS share_key_opens
FROM site LEFT JOIN site_publishing_auth a ON a.site_id = site.id`;

/** Page paths per revision are immutable (a revision never changes): this many answers are kept. */
const PAGE_MEMO = 20_000;

/** The queries of URL resolution and of the site-token guard. */
@Injectable()
export class PublishedRepository {
  private readonly pages = new Map<string, boolean>();
  private readonly keys = new Map<string, string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async snapshot(key: SiteKey, shareKey?: string): Promise<SiteSnapshot | null> {
    const rows: SnapshotRow[] = await this.dataSource.query(SNAPSHOT, [
      'hostname' in key ? key.hostname : null,
      'organizationHostname' in key ? key.organizationHostname : null,
      'organizationHostname' in key ? (key.basename ?? null) : null,
      'siteId' in key ? key.siteId : null,
      shareKey ?? null,
    ]);
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      organizationId: row.organization_id,
      visibility: row.visibility,
      published: row.published,
      adaptiveSchema: row.adaptive_schema,
      matched: row.matched,
      sections: displayOrder(row.sections ?? [], row.groups ?? []),
      siteSpaces: row.site_spaces ?? [],
      privateKey: row.private_key === null ? null : this.decrypted(row.private_key),
      fallbackUrl: row.fallback_url,
      shareKeyOpens: row.share_key_opens,
    };
  }

  /** Whether `revisionId` has a page at `path` (slugs from the root joined with `/`). */
  async pageExists(revisionId: string, path: string): Promise<boolean> {
    const memoKey = `${revisionId}\u0000${path}`;
    const known = this.pages.get(memoKey);
    if (known !== undefined) return known;
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM revision_pages WHERE revision_id = $1 AND path = $2 LIMIT 1`, [revisionId, path]);
    if (this.pages.size >= PAGE_MEMO) this.pages.clear();
    this.pages.set(memoKey, rows.length > 0);
    return rows.length > 0;
  }

  /** The ciphertext is the key's stored form: decrypting it once per value is enough (a regenerated key is a new value). */
  private decrypted(stored: string): string {
    let plain = this.keys.get(stored);
    if (plain === undefined) {
      plain = secretCipher().decrypt(stored, 'site_publishing_auth.private_key');
      if (this.keys.size >= 1000) this.keys.clear();
      this.keys.set(stored, plain);
    }
    return plain;
  }
}

/** Sections as the structure shows them: root sections and groups by position, each group's sections in its place. */
function displayOrder(
  sections: (SnapshotSection & { groupId: string | null; position: number })[],
  groups: { id: string; position: number }[],
): SnapshotSection[] {
  const byPosition = (a: { position: number; id: string }, b: { position: number; id: string }) => a.position - b.position || (a.id < b.id ? -1 : 1);
  const root = [
    ...sections.filter((section) => section.groupId === null).map((section) => ({ id: section.id, position: section.position, items: [section] })),
    ...groups.map((group) => ({ id: group.id, position: group.position, items: sections.filter((section) => section.groupId === group.id) })),
  ].sort(byPosition);
  return root.flatMap((item) => item.items.map(({ id, path, condition, isDefault }) => ({ id, path, condition, isDefault })));
}
