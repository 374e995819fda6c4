import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '../../../common/pagination/cursor';
import type { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { AppConfig } from '../../../config/app-config';
import type { RankedPage } from '../../content/search/search-index.repository';
import { SearchIndexRepository } from '../../content/search/search-index.repository';
import type { SearchHit, SectionHit } from '../../content/search/search.read-model';
import type { SearchPlace, SiteSearchResults } from './site-search.read-model';
import type { Membership } from '../../organizations/membership.entity';
import { siteError } from '../site.errors';
import { siteRedirectError as readersError } from '../site-readers.errors';
import { SiteWrites } from '../site-writes';
import { conditionHolds, type VisitorClaims } from '../adaptive-content';
import type { SiteSearchDto } from './dto/site-search.dto';
import { SiteSearchRepository } from './site-search.repository';

const LIST = 'site-search:score:desc';
/** The list name of a space's own search cursor (`SearchIndexRepository`). */
const SPACE_LIST = 'search:score:desc';

/** The smallest float4 above `value`: `score < nextUp(s)` is `score <= s` for float4 scores. */
function nextUp(value: number): number {
  const buffer = new Float32Array([value]);
  const bits = new Int32Array(buffer.buffer);
  if (value >= 0) bits[0] += 1;
  else bits[0] -= 1;
  return buffer[0];
}

/**
 * `searchSiteContent`: the site's full-text search, over the active revisions of the spaces its
 * scope names, with each space's own index (`SearchIndexRepository`: the same ranking, own tables of
 * large spaces included). Each space gives its best `limit + 1` hits after the cursor; they are merged
 * best first (score, then space id, then the space's own order), so a page costs `limit + 1` hits per
 * space whatever the size of the spaces. The cursor is the last hit's (score, space, page) and its
 * rank; each space's part of it is rebuilt from that, so walking the pages reaches every ranked hit once.
 * A space's matches beyond its ranked candidates (`SEARCH_CANDIDATES` title and body matches) are
 * not walked: they have no order to merge by.
 */
@Injectable()
export class SiteSearchService {
  constructor(
    private readonly rows: SiteSearchRepository,
    private readonly writes: SiteWrites,
    private readonly index: SearchIndexRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * `claims`: the visitor's, when the caller reads as a visitor (a site token): site spaces and sections
   * whose condition is false for them are not searched. Null for a member of the organization, who
   * searches everything the site shows, as `getSiteStructure` shows it.
   */
  async search(
    caller: Membership,
    siteId: string,
    body: SiteSearchDto,
    list: Pick<ListQueryDto, 'page' | 'limit'>,
    claims: VisitorClaims | null,
  ): Promise<SiteSearchResults> {
    const site = await this.writes.read(caller, siteId);
    if (!site.published) throw siteError('site.not_found', `Site ${siteId} is not published`);
    const places = (await this.rows.places(site.id)).filter(
      (place) => claims === null || (conditionHolds(place.sectionCondition, claims) && conditionHolds(place.condition, claims)),
    );
    const scoped = this.scope(places, body);
    // One space shown twice (two sections) is searched once, under its first site space.
    const bySpace = new Map<string, SearchPlace>();
    for (const place of scoped) if (!bySpace.has(place.spaceId)) bySpace.set(place.spaceId, place);
    return this.merge([...bySpace.values()], body.query, list);
  }

  /** Which site spaces the body's scope names (among the visible ones). */
  private scope(places: SearchPlace[], body: SiteSearchDto): SearchPlace[] {
    const bad = (message: string) => readersError('site_search.invalid_scope', message);
    const defaults = places.filter((place) => place.isDefault);
    const known = (id: unknown, name: string): SearchPlace[] => {
      if (typeof id !== 'string') throw bad(`${name}: must be a site space id`);
      return places.filter((place) => place.id === id);
    };
    if (body.scope !== undefined) {
      if (body.mode !== undefined || body.siteSpaceIds !== undefined || body.siteSpaceId !== undefined)
        throw bad('scope: cannot be combined with mode, siteSpaceIds or siteSpaceId');
      const scope = body.scope;
      const extra = (allowed: string[]) => Object.keys(scope).find((key) => !allowed.includes(key));
      switch (scope.mode) {
        case 'all':
          if (extra(['mode'])) throw bad(`scope.${extra(['mode'])}: should not exist with mode all`);
          return places;
        case 'specific': {
          if (extra(['mode', 'siteSpaceIds'])) throw bad(`scope.${extra(['mode', 'siteSpaceIds'])}: should not exist with mode specific`);
          const ids = scope.siteSpaceIds;
          if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000) throw bad('scope.siteSpaceIds: must be a non-empty array of site space ids');
          return ids.flatMap((id, index) => known(id, `scope.siteSpaceIds.${index}`));
        }
        case 'default': {
          if (extra(['mode', 'currentSiteSpace', 'restrictTo']))
            throw bad(`scope.${extra(['mode', 'currentSiteSpace', 'restrictTo'])}: should not exist with mode default`);
          const current = scope.currentSiteSpace === undefined ? [] : known(scope.currentSiteSpace, 'scope.currentSiteSpace');
          if (scope.restrictTo === undefined) return [...current, ...defaults];
          if (scope.currentSiteSpace === undefined) throw bad('scope.currentSiteSpace: is required with restrictTo');
          if (scope.restrictTo === 'currentSiteSpace') return current;
          if (scope.restrictTo === 'otherSiteSpaces') return defaults.filter((place) => !current.some((c) => c.id === place.id));
          throw bad('scope.restrictTo: must be one of currentSiteSpace, otherSiteSpaces');
        }
      }
      throw bad('scope.mode: must be one of default, specific, all');
    }
    switch (body.mode) {
      case 'all':
        if (body.siteSpaceIds !== undefined || body.siteSpaceId !== undefined) throw bad('mode all: takes no siteSpaceIds or siteSpaceId');
        return places;
      case 'current':
        if (body.siteSpaceId === undefined) throw bad('siteSpaceId: is required with mode current');
        return [...known(body.siteSpaceId, 'siteSpaceId'), ...defaults];
      case 'specific':
      case undefined:
        if (body.siteSpaceIds === undefined)
          throw bad(body.mode ? 'siteSpaceIds: is required with mode specific' : 'scope: is required (or the deprecated mode)');
        return body.siteSpaceIds.flatMap((id, index) => known(id, `siteSpaceIds.${index}`));
    }
  }

  private async merge(places: SearchPlace[], query: string, list: Pick<ListQueryDto, 'page' | 'limit'>): Promise<SiteSearchResults> {
    const cursor = list.page ? decodeCursor(list.page, LIST, 4) : undefined;
    if (cursor && (typeof cursor[0] !== 'number' || typeof cursor[1] !== 'string' || typeof cursor[2] !== 'string' || typeof cursor[3] !== 'number')) {
      throw readersError('site_search.invalid_scope', 'page: is not a valid page cursor');
    }
    const [lastScore, lastSpace, lastPage, before] = (cursor ?? [0, '', '', 0]) as [number, string, string, number];
    // The site's candidates are shared by its spaces: a search of three spaces ranks about as many
    // matches as one space's search, not three times as many (the fan-out was most of a large site's time).
    const bound = Math.max(Math.ceil(this.config.search.candidates / Math.max(1, places.length)), list.limit + 2);
    // The query parsed, and each space's table found, once for all the spaces.
    const parsed =
      places.length > 0
        ? await this.index.parse(
            places.map((place) => place.spaceId),
            query,
          )
        : new Map();
    const pages: { place: SearchPlace; page: RankedPage }[] = await Promise.all(
      places.map(async (place) => {
        let page: string | undefined;
        if (cursor) {
          // This space's part of "after the last hit" in (score desc, space desc, page desc) order.
          const key = place.spaceId === lastSpace ? [lastScore, lastPage] : place.spaceId < lastSpace ? [nextUp(lastScore), ''] : [lastScore, ''];
          page = encodeCursor(SPACE_LIST, [key[0], key[1], 0, bound, 0]);
        }
        return {
          place,
          page: await this.index.search(place.spaceId, query, { page, limit: list.limit + 1 }, this.config.search.candidates, {
            rankedOnly: true,
            bound,
            parsed,
          }),
        };
      }),
    );
    // k-way merge: each space's hits are in its own order already.
    const queues = pages.map(({ place, page }) => ({ place, hits: page.items.map((hit) => ({ ...hit, score: Math.fround(hit.score) })) }));
    const merged: { place: SearchPlace; hit: SearchHit }[] = [];
    while (merged.length <= list.limit) {
      let best: (typeof queues)[number] | undefined;
      for (const queue of queues) {
        if (queue.hits.length === 0) continue;
        if (!best || queue.hits[0].score > best.hits[0].score || (queue.hits[0].score === best.hits[0].score && queue.place.spaceId > best.place.spaceId))
          best = queue;
      }
      if (!best) break;
      merged.push({ place: best.place, hit: best.hits.shift()! });
    }
    const taken = merged.slice(0, list.limit);
    const hits = taken.map(({ place, hit }, index) => ({ place, hit, rank: before + index + 1 }));
    const documentIds = taken.map(({ hit }) => hit.documentId).filter((id): id is string => id !== null);
    const sections = new Map<string, SectionHit[]>();
    for (const section of await this.index.sections(documentIds, query)) {
      sections.set(section.documentId, [...(sections.get(section.documentId) ?? []), section]);
    }
    const results: SiteSearchResults = { hits, sections, count: pages.reduce((sum, { page }) => sum + page.count, 0) };
    if (merged.length > list.limit) {
      const last = hits[hits.length - 1];
      results.next = { page: encodeCursor(LIST, [last.hit.score, last.place.spaceId, last.hit.pageId, last.rank]) };
    }
    return results;
  }
}
