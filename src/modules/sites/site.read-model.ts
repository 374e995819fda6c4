import type { SpacePermissionsJson } from '../space-model/space-permissions';
import type { Space } from '../space-model/space.entity';
import type { SiteSectionGroup } from './site-section-group.entity';
import type { SiteSection } from './site-section.entity';
import type { SiteSpace } from './site-space.entity';
import type { Site } from './site.entity';

/** A site with its live count of site spaces. */
export interface SiteRow {
  site: Site;
  siteSpaces: number;
}

/** A site space with the space it shows (and the section's path, for its published URL). */
export interface SiteSpaceRow {
  siteSpace: SiteSpace;
  space: Space;
  sectionPath: string | null;
}

export interface SectionRow {
  section: SiteSection;
  siteSpaces: SiteSpaceRow[];
}

export interface SectionGroupRow {
  group: SiteSectionGroup;
  sections: SectionRow[];
}

/** How a site is organized: in sections (and groups), or as site spaces at the root. */
export type StructureRow = { type: 'sections'; items: (SectionRow | SectionGroupRow)[] } | { type: 'siteSpaces'; items: SiteSpaceRow[] };

/** What a service hands a controller to present: the site, the caller's permissions on the spaces shown, a checked share key. */
export interface SiteView<T> {
  site: Site;
  value: T;
  spacePermissions: Map<string, SpacePermissionsJson>;
  shareKey?: string;
}
