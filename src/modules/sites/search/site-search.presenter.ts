import type { AppConfig } from '../../../config/app-config';
import { presentSearchResult, SearchPageResultJson } from '../../content/search/search.presenter';
import type { SectionHit } from '../../content/search/search.read-model';
import type { SiteSearchResults } from './site-search.read-model';

/** `SearchSpaceResult` of the public description: a space and its matching pages, best first. */
export interface SearchSpaceResultJson {
  type: 'space';
  id: string;
  title: string;
  score: number;
  pages: SearchPageResultJson[];
}

const EXCERPT = 360;
const BEFORE = 120;

/** The words of a query as a reader typed them (operators and quotes left out), lower case. */
function queryWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((word) => word.length >= 2 && word !== 'or' && word !== 'and');
}

/**
 * The part of a section's text that shows the match: a window around the first place where a word
 * of the query (or its stem's first letters, since matching is stemmed) appears, cut at spaces and
 * marked with `…`. Plain text: the renderer highlights the query's words in it itself.
 */
export function excerptAround(body: string, query: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (text.length <= EXCERPT) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const word of queryWords(query)) {
    // The word, else shorter beginnings of it (down to its stem's likely length: "running" → "run").
    for (let length = word.length; length >= Math.min(word.length, Math.max(3, word.length - 4)); length--) {
      const found = lower.indexOf(word.slice(0, length));
      if (found < 0) continue;
      if (at < 0 || found < at) at = found;
      break;
    }
  }
  let start = at <= BEFORE ? 0 : at - BEFORE;
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space >= 0 && space < at ? space + 1 : start;
  }
  let end = Math.min(text.length, start + EXCERPT);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > Math.max(start, at)) end = space;
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** The results grouped by space, in the order of each space's best hit; each page keeps its global rank. */
export function presentSiteSearch(results: SiteSearchResults, query: string, config: AppConfig) {
  const groups = new Map<string, SearchSpaceResultJson>();
  for (const { place, hit, rank } of results.hits) {
    let group = groups.get(place.spaceId);
    if (!group) {
      group = { type: 'space', id: place.spaceId, title: place.spaceTitle, score: hit.score, pages: [] };
      groups.set(place.spaceId, group);
    }
    const sections: SectionHit[] = (hit.documentId ? (results.sections.get(hit.documentId) ?? []) : []).map((section) => ({
      ...section,
      body: excerptAround(section.body, query),
    }));
    const context = { config, organizationId: place.organizationId, spaceId: place.spaceId, revisionId: place.revisionId, active: true };
    group.pages.push(presentSearchResult(context, hit, rank, sections));
  }
  const json: { items: SearchSpaceResultJson[]; count: number; next?: { page: string } } = { items: [...groups.values()], count: results.count };
  if (results.next) json.next = results.next;
  return json;
}
