import type { Page } from '../../../common/pagination/paginate';
import type { RevisionContext } from '../content.read-model';

/** A page that matches a search, with its rank score and its ancestors' titles (root first). */
export interface SearchHit {
  pageId: string;
  documentId: string | null;
  title: string;
  path: string;
  description: string;
  ancestors: string[];
  score: number;
}

/** A section (a heading and the text under it) of a matching page that matches too. */
export interface SectionHit {
  documentId: string;
  anchor: string;
  heading: string;
  body: string;
  score: number;
}

/** A page of search results of a revision: the hits, the rank of the first one, and each document's matching sections. */
export interface SearchResults {
  context: RevisionContext;
  page: Page<SearchHit>;
  /** The rank of the first hit in the whole ranked list (1 on the first page). */
  first: number;
  sections: Map<string, SectionHit[]>;
}
