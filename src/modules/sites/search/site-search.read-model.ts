import type { SearchHit, SectionHit } from '../../content/search/search.read-model';

/** A site space that search may read: its space, section and conditions. */
export interface SearchPlace {
  id: string;
  spaceId: string;
  spaceTitle: string;
  organizationId: string;
  revisionId: string;
  isDefault: boolean;
  sectionId: string | null;
  sectionDefault: boolean;
  condition: string | null;
  sectionCondition: string | null;
}

/** A hit with the space it was found in, and its rank in the whole ranked list. */
export interface SiteHit {
  place: SearchPlace;
  hit: SearchHit;
  rank: number;
}

export interface SiteSearchResults {
  hits: SiteHit[];
  sections: Map<string, SectionHit[]>;
  count: number;
  next?: { page: string };
}
