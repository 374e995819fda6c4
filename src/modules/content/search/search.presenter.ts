import { pageAppUrl } from '../content.presenter';
import type { RevisionContext } from '../content.read-model';
import type { SearchHit, SearchResults, SectionHit } from './search.read-model';

// A section's text can be long; results show its beginning.
const MAX_BODY = 1000;

/** `SearchSectionResult` of the public description. */
export interface SearchSectionResultJson {
  id: string;
  title: string;
  path: string;
  score: number;
  resultType: 'section';
  body: string;
  urls: { app: string };
}

/** `SearchPageResult` of the public description. */
export interface SearchPageResultJson {
  id: string;
  title: string;
  description: string;
  path: string;
  score: number;
  rank: number;
  resultType: 'section' | 'page';
  ancestors: { title: string }[];
  sections: SearchSectionResultJson[];
  urls: { app: string };
}

/** `searchSpaceContent`: a page of results, best first. */
export interface SearchResultsJson {
  items: SearchPageResultJson[];
  count: number;
  next?: { page: string };
}

/** `SearchPageResult` of the public description: the page, its ancestors and its matching sections. */
export function presentSearchResult(context: RevisionContext, hit: SearchHit, rank: number, sections: SectionHit[]): SearchPageResultJson {
  const pageUrl = pageAppUrl(context, hit.path);
  return {
    id: hit.pageId,
    title: hit.title,
    description: hit.description,
    path: hit.path,
    score: hit.score,
    rank,
    // "section" when the words were found in the body, "page" when only the title or description matched.
    resultType: sections.length > 0 ? 'section' : 'page',
    ancestors: hit.ancestors.map((title) => ({ title })),
    sections: sections.map((section) => ({
      id: section.anchor || 'top',
      title: section.heading || hit.title,
      path: section.anchor ? `${hit.path}#${section.anchor}` : hit.path,
      score: section.score,
      resultType: 'section',
      body: section.body.length > MAX_BODY ? `${section.body.slice(0, MAX_BODY)}…` : section.body,
      urls: { app: section.anchor ? `${pageUrl}#${section.anchor}` : pageUrl },
    })),
    urls: { app: pageUrl },
  };
}

export function presentSearchResults({ context, page, first, sections }: SearchResults): SearchResultsJson {
  return {
    ...page,
    items: page.items.map((hit, index) => presentSearchResult(context, hit, first + index, hit.documentId ? (sections.get(hit.documentId) ?? []) : [])),
  };
}
