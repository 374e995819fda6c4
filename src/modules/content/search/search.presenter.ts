import { pageAppUrl, RevisionContext } from '../content.presenter';
import type { SearchHit, SectionHit } from './search-index.repository';

// A section's text can be long; results show its beginning.
const MAX_BODY = 1000;

/** `SearchPageResult` of the public description: the page, its ancestors and its matching sections. */
export function presentSearchResult(context: RevisionContext, hit: SearchHit, rank: number, sections: SectionHit[]) {
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
