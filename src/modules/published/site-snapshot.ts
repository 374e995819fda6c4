import type { SiteVisibility } from '../sites/site.entity';

/**
 * What URL resolution and the site-token guard need of one site, read in one query
 * (`PublishedRepository.snapshot`): the site's settings, its sections in display order, and its site
 * spaces (whose space is live and still the site organization's) with their spaces' live revisions.
 */
export interface SiteSnapshot {
  id: string;
  organizationId: string;
  visibility: SiteVisibility;
  published: boolean;
  adaptiveSchema: Record<string, unknown> | null;
  /** Whether the organization address's first path segment named this site (its basename or id). */
  matched: boolean;
  /** Sections in display order (root sections and groups by position, a group's sections in place); empty: a site without sections. */
  sections: SnapshotSection[];
  /** By position within their level. */
  siteSpaces: SnapshotSiteSpace[];
  /** The publishing-auth key, decrypted (null: none configured). */
  privateKey: string | null;
  /** Who signs visitor JWTs: the site's own backend with `privateKey`, or its visitor-auth integration (`SITE_VISITOR_AUTH`). */
  backend: 'custom' | 'integration';
  fallbackUrl: string | null;
  /** Whether the share key asked about is an active link of this site. */
  shareKeyOpens: boolean;
}

export interface SnapshotSection {
  id: string;
  path: string;
  condition: string | null;
  isDefault: boolean;
}

export interface SnapshotSiteSpace {
  id: string;
  sectionId: string | null;
  spaceId: string;
  revisionId: string;
  path: string;
  condition: string | null;
  isDefault: boolean;
}
