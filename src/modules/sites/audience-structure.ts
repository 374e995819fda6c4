import { conditionHolds, type VisitorClaims } from './adaptive-content';
import type { SectionGroupRow, SectionRow, SiteSpaceRow, StructureRow } from './site.read-model';

/**
 * What a site's structure shows one visitor audience (a site API token's claims), as URL resolution
 * serves it (`published/visible-structure.ts`): a section or site space whose condition is false for
 * the claims is left out, with everything under it; a section left with no site space, and a group
 * left with no section, are left out too. When a level's default is hidden, the first item shown
 * stands in as its default (the one resolution serves at the level's own path), so the structure
 * never names what it hides, not even as a default. Pure.
 */
export function structureForAudience(structure: StructureRow, claims: VisitorClaims): StructureRow {
  if (structure.type === 'siteSpaces') return { type: 'siteSpaces', items: siteSpacesShown(structure.items, claims) };
  const sectionShown = (row: SectionRow): SectionRow | null => {
    if (!conditionHolds(row.section.condition, claims)) return null;
    const siteSpaces = siteSpacesShown(row.siteSpaces, claims);
    return siteSpaces.length > 0 ? { section: row.section, siteSpaces } : null;
  };
  const items: (SectionRow | SectionGroupRow)[] = [];
  for (const item of structure.items) {
    if ('group' in item) {
      const sections = item.sections.map(sectionShown).filter((row): row is SectionRow => row !== null);
      if (sections.length > 0) items.push({ group: item.group, sections });
    } else {
      const row = sectionShown(item);
      if (row) items.push(row);
    }
  }
  // The default section, or the first shown in display order standing in for a hidden one.
  const sections = items.flatMap((item) => ('group' in item ? item.sections : [item]));
  if (sections.length > 0 && !sections.some((row) => row.section.isDefault)) {
    const standIn = sections[0];
    const replaced: SectionRow = { ...standIn, section: { ...standIn.section, isDefault: true } };
    const swap = (row: SectionRow) => (row === standIn ? replaced : row);
    return {
      type: 'sections',
      items: items.map((item) => ('group' in item ? { group: item.group, sections: item.sections.map(swap) } : swap(item))),
    };
  }
  return { type: 'sections', items };
}

/** Site spaces of one level whose condition holds; the first shown is the default when the default is hidden. */
function siteSpacesShown(rows: SiteSpaceRow[], claims: VisitorClaims): SiteSpaceRow[] {
  const shown = rows.filter((row) => conditionHolds(row.siteSpace.condition, claims));
  if (shown.length === 0 || shown.some((row) => row.siteSpace.isDefault)) return shown;
  return [{ ...shown[0], siteSpace: { ...shown[0].siteSpace, isDefault: true } }, ...shown.slice(1)];
}

/** How many site spaces a structure shows. */
export function siteSpaceCount(structure: StructureRow): number {
  if (structure.type === 'siteSpaces') return structure.items.length;
  return structure.items.flatMap((item) => ('group' in item ? item.sections : [item])).reduce((sum, row) => sum + row.siteSpaces.length, 0);
}
