import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { secretCipher } from '../../common/crypto/secret-cipher';
import { queryPrepared } from '../../database/prepared-query';
import type { SiteSnapshot, SnapshotSection, SnapshotSiteSpace } from './site-snapshot';
import { SnapshotEpoch } from './snapshot-epoch.port';

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
  backend: 'custom' | 'integration' | null;
  fallback_url: string | null;
  share_key_opens: boolean;
}

/**
 * One round trip for everything resolution needs of a site (the hot path of every page a reader
 * loads): the site found by its address, its sections, groups and site spaces with their spaces' live
 * revisions, its publishing auth, and whether a share key opens it.
 */
const siteBy = {
  hostname: `SELECT s.id, s.organization_id, s.visibility, s.published, s.adaptive_schema, false AS matched FROM sites s WHERE s.hostname = $1`,
  id: `SELECT s.id, s.organization_id, s.visibility, s.published, s.adaptive_schema, false AS matched FROM sites s WHERE s.id = $1`,
  // The site named by the first path segment (basename or id), else the organization's default site, else its only site.
  organization: `
    SELECT s.id, s.organization_id, s.visibility, s.published, s.adaptive_schema, coalesce(s.basename = $2 OR s.id = $2, false) AS matched
      FROM organizations o JOIN sites s ON s.organization_id = o.id
     WHERE o.hostname = $1
       AND (coalesce(s.basename = $2 OR s.id = $2, false)
         OR s.id = o.default_site_id
         OR NOT EXISTS (SELECT 1 FROM sites x WHERE x.organization_id = o.id AND x.id <> s.id))
     ORDER BY 6 DESC
     LIMIT 1`,
};

/** Everything else of the site found by `site` (one of the above), in the same round trip. $N is the share key. */
const snapshotOf = (site: string, shareKey: string) => `
WITH site AS (${site})
SELECT site.*,
  (SELECT json_agg(json_build_object('id', c.id, 'path', c.path, 'condition', c.condition, 'isDefault', c.is_default,
                                     'groupId', c.group_id, 'position', c.position) ORDER BY c.position, c.id)
     FROM site_sections c WHERE c.site_id = site.id) AS sections,
  (SELECT json_agg(json_build_object('id', g.id, 'position', g.position)) FROM site_section_groups g WHERE g.site_id = site.id) AS groups,
  (SELECT json_agg(json_build_object('id', ss.id, 'sectionId', ss.section_id, 'spaceId', ss.space_id, 'revisionId', sp.revision_id,
                                     'path', ss.path, 'condition', ss.condition, 'isDefault', ss.is_default) ORDER BY ss.position, ss.id)
     FROM site_spaces ss JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL AND sp.organization_id = site.organization_id
    WHERE ss.site_id = site.id) AS site_spaces,
  a.private_key, a.backend, a.fallback_url,
  (${shareKey}::text IS NOT NULL AND EXISTS (SELECT 1 FROM site_share_links l WHERE l.site_id = site.id AND l.key = ${shareKey} AND l.active)) AS share_key_opens
FROM site LEFT JOIN site_publishing_auth a ON a.site_id = site.id`;

/** The three statements, prepared once per connection (`queryPrepared`): resolution runs on every page a reader loads. */
const SNAPSHOTS = {
  hostname: { name: 'published-site-by-hostname', text: snapshotOf(siteBy.hostname, '$2') },
  id: { name: 'published-site-by-id', text: snapshotOf(siteBy.id, '$2') },
  organization: { name: 'published-site-by-organization', text: snapshotOf(siteBy.organization, '$3') },
};
const PAGE_AT_PATH = { name: 'published-page-at-path', text: `SELECT 1 FROM revision_pages WHERE revision_id = $1 AND path = $2 LIMIT 1` };

const GENERATION = { name: 'published-generation', text: `SELECT last_value::text AS generation FROM published_generation` };
/**
 * How many snapshots a process keeps, and for how long at most: the bound on a snapshot read in the
 * instant a writer committed when the generation is read per request, and a backstop otherwise.
 */
const SNAPSHOT_MEMO = 2000;
const SNAPSHOT_TTL_MS = 10_000;

/** Page paths per revision are immutable (a revision never changes): this many answers are kept. */
const PAGE_MEMO = 20_000;

/** The queries of URL resolution and of the site-token guard. */
@Injectable()
export class PublishedRepository {
  private readonly pages = new Map<string, boolean>();
  private readonly snapshots = new Map<string, { version: string; at: number; value: SiteSnapshot | null }>();
  private readonly keys = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly freshness: SnapshotEpoch,
  ) {}

  /**
   * The site's snapshot, from memory while nothing it was read from has changed, and never older than
   * SNAPSHOT_TTL_MS. Changed means: the freshness epoch moved (no query: see SnapshotFreshness), or,
   * while this process cannot listen for changes, `published_generation` moved (migration
   * 1800000150001: any committed change to sites, their structure, share links, publishing auth,
   * spaces or organizations moves it; one trivial read per request).
   */
  async snapshot(key: SiteKey, shareKey?: string): Promise<SiteSnapshot | null> {
    // Taken before the load: a change heard while loading leaves the loaded snapshot already out of date.
    const epoch = this.freshness.epoch();
    const version =
      epoch !== null ? `e${epoch}` : `g${(await queryPrepared<{ generation: string }>(this.dataSource, GENERATION.name, GENERATION.text, []))[0].generation}`;
    const cacheKey = shareKey === undefined ? keyOf(key) : `${keyOf(key)}\u0000${shareKey}`;
    const kept = this.snapshots.get(cacheKey);
    if (kept && kept.version === version && Date.now() - kept.at < SNAPSHOT_TTL_MS) return kept.value;
    const value = await this.load(key, shareKey);
    if (this.snapshots.size >= SNAPSHOT_MEMO) this.snapshots.clear();
    this.snapshots.set(cacheKey, { version, at: Date.now(), value });
    return value;
  }

  private async load(key: SiteKey, shareKey?: string): Promise<SiteSnapshot | null> {
    const share = shareKey ?? null;
    const [statement, values] =
      'hostname' in key
        ? [SNAPSHOTS.hostname, [key.hostname, share]]
        : 'siteId' in key
          ? [SNAPSHOTS.id, [key.siteId, share]]
          : [SNAPSHOTS.organization, [key.organizationHostname, key.basename ?? null, share]];
    const rows = await queryPrepared<SnapshotRow>(this.dataSource, statement.name, statement.text, values);
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
      backend: row.backend ?? 'custom',
      fallbackUrl: row.fallback_url,
      shareKeyOpens: row.share_key_opens,
    };
  }

  /** Whether `revisionId` has a page at `path` (slugs from the root joined with `/`). */
  async pageExists(revisionId: string, path: string): Promise<boolean> {
    const memoKey = `${revisionId}\u0000${path}`;
    const known = this.pages.get(memoKey);
    if (known !== undefined) return known;
    const rows = await queryPrepared(this.dataSource, PAGE_AT_PATH.name, PAGE_AT_PATH.text, [revisionId, path]);
    if (this.pages.size >= PAGE_MEMO) this.pages.clear();
    this.pages.set(memoKey, rows.length > 0);
    return rows.length > 0;
  }

  /**
   * A change request a preview may show: one of `spaceId` that is still `draft` or `open`, with its
   * head revision now (null otherwise: merged, archived, unknown, another space's). Never memoized: a
   * change request's head moves with every edit.
   */
  async previewable(changeRequestId: string, spaceId: string): Promise<{ id: string; revisionId: string } | null> {
    const rows: { id: string; revision: string }[] = await this.dataSource.query(
      `SELECT id, revision FROM change_requests WHERE id = $1 AND space_id = $2 AND status IN ('draft', 'open')`,
      [changeRequestId, spaceId],
    );
    return rows.length > 0 ? { id: rows[0].id, revisionId: rows[0].revision } : null;
  }

  /** The site's visitor-auth backend and its login and logout URLs as an admin set them (null: no publishing auth yet). */
  async publishingAuthUrls(siteId: string): Promise<{ backend: 'custom' | 'integration'; fallbackUrl: string | null; logoutUrl: string | null } | null> {
    const rows: { backend: 'custom' | 'integration'; fallback_url: string | null; logout_url: string | null }[] = await this.dataSource.query(
      `SELECT backend, fallback_url, logout_url FROM site_publishing_auth WHERE site_id = $1`,
      [siteId],
    );
    return rows[0] ? { backend: rows[0].backend, fallbackUrl: rows[0].fallback_url, logoutUrl: rows[0].logout_url } : null;
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

function keyOf(key: SiteKey): string {
  if ('hostname' in key) return `h\u0000${key.hostname}`;
  if ('siteId' in key) return `i\u0000${key.siteId}`;
  return `o\u0000${key.organizationHostname}\u0000${key.basename ?? '\u0001'}`;
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
