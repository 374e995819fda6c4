import { conditionHolds, type VisitorClaims } from '../sites/adaptive-content';
import type { SiteSection } from '../sites/site-section.entity';
import type { SiteSpaceRow, StructureRow } from '../sites/site.read-model';

/** One level a reader can be in: a section (or the root of a site without sections) and its site spaces shown to the visitor. */
export interface VisibleLevel {
  section: SiteSection | null;
  /** Shown to the visitor, in order; the level's default first when it is shown, else the first shown stands in. */
  siteSpaces: SiteSpaceRow[];
}

/** What a visitor with `claims` is shown of a site: its sections (their conditions true) with their shown site spaces; the default level first. */
export function visibleLevels(structure: StructureRow, claims: VisitorClaims): VisibleLevel[] {
  const shownSpaces = (rows: SiteSpaceRow[]) => {
    const shown = rows.filter((row) => conditionHolds(row.siteSpace.condition, claims));
    const index = shown.findIndex((row) => row.siteSpace.isDefault);
    return index > 0 ? [shown[index], ...shown.slice(0, index), ...shown.slice(index + 1)] : shown;
  };
  if (structure.type === 'siteSpaces') {
    const siteSpaces = shownSpaces(structure.items);
    return siteSpaces.length > 0 ? [{ section: null, siteSpaces }] : [];
  }
  const levels = structure.items
    .flatMap((item) => ('group' in item ? item.sections : [item]))
    .filter((row) => conditionHolds(row.section.condition, claims))
    .map((row) => ({ section: row.section as SiteSection | null, siteSpaces: shownSpaces(row.siteSpaces) }))
    .filter((level) => level.siteSpaces.length > 0);
  const index = levels.findIndex((level) => level.section?.isDefault);
  return index > 0 ? [levels[index], ...levels.slice(0, index), ...levels.slice(index + 1)] : levels;
}

/** Every space a visitor with `claims` is shown (what a site token of that audience may read). */
export function visibleSpaceIds(levels: VisibleLevel[]): string[] {
  return [...new Set(levels.flatMap((level) => level.siteSpaces.map((row) => row.space.id)))];
}
