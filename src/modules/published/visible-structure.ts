import { createHash } from 'node:crypto';
import { claimAt, conditionClaimPaths, conditionHolds, type VisitorClaims } from '../sites/adaptive-content';
import { canonical } from './site-auth/site-token';
import type { SiteSnapshot, SnapshotSection, SnapshotSiteSpace } from './site-snapshot';

/** One level a reader can be in: a section (or the root of a site without sections) and its site spaces shown to the visitor. */
export interface VisibleLevel {
  section: SnapshotSection | null;
  /** Shown to the visitor, in order; the level's default first when it is shown, else the first shown stands in. */
  siteSpaces: SnapshotSiteSpace[];
}

const defaultFirst = <T>(items: T[], isDefault: (item: T) => boolean): T[] => {
  const index = items.findIndex(isDefault);
  return index > 0 ? [items[index], ...items.slice(0, index), ...items.slice(index + 1)] : items;
};

/**
 * What a visitor with `claims` is shown of a site, as `getSiteStructure` lists it: sections whose
 * condition holds, with their site spaces whose condition holds (a false condition hides the item),
 * the default level first. A level with nothing shown is left out.
 */
export function visibleLevels(site: SiteSnapshot, claims: VisitorClaims): VisibleLevel[] {
  const shownSpaces = (sectionId: string | null) =>
    defaultFirst(
      site.siteSpaces.filter((row) => row.sectionId === sectionId && conditionHolds(row.condition, claims)),
      (row) => row.isDefault,
    );
  if (site.sections.length === 0) {
    const siteSpaces = shownSpaces(null);
    return siteSpaces.length > 0 ? [{ section: null, siteSpaces }] : [];
  }
  const levels = site.sections
    .filter((section) => conditionHolds(section.condition, claims))
    .map((section) => ({ section: section as SnapshotSection | null, siteSpaces: shownSpaces(section.id) }))
    .filter((level) => level.siteSpaces.length > 0);
  return defaultFirst(levels, (level) => level.section?.isDefault === true);
}

/** Every space a visitor with `claims` is shown (what a site token of that audience may read). */
export function visibleSpaceIds(levels: VisibleLevel[]): string[] {
  return [...new Set(levels.flatMap((level) => level.siteSpaces.map((row) => row.spaceId)))];
}

/**
 * `PublishedSiteContent.contextId` of an authenticated visitor: a digest of what in their context
 * changes what the site renders for them, and nothing else: the values of the claims the site's
 * conditions read (an absent claim and one no condition reads weigh nothing); what those conditions
 * show follows from them. Two visitors with the same effective claims share it; a change in a claim a
 * condition reads changes it. The claims themselves are never shown (SHA-256, base64url).
 */
export function contextIdOf(site: SiteSnapshot, claims: VisitorClaims): string {
  const read = claimPathsOf(site).map((path) => [path, canonical(claimAt(claims, path)) ?? null]);
  return createHash('sha256')
    .update(JSON.stringify([site.id, read]))
    .digest('base64url');
}

/** Snapshots are kept while the site does not change: the claim paths its conditions read are worked out once per snapshot. */
const pathsBySnapshot = new WeakMap<SiteSnapshot, string[]>();

function claimPathsOf(site: SiteSnapshot): string[] {
  let paths = pathsBySnapshot.get(site);
  if (paths === undefined) {
    const conditions = [...site.sections.map((section) => section.condition), ...site.siteSpaces.map((row) => row.condition)];
    paths = [...new Set(conditions.flatMap((condition) => (condition === null ? [] : conditionClaimPaths(condition))))].sort();
    pathsBySnapshot.set(site, paths);
  }
  return paths;
}
