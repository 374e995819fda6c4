import { conditionHolds, type VisitorClaims } from '../sites/adaptive-content';
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
