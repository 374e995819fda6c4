import { trimEndChar } from '../../../common/text/trim';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import type { Page } from '../../../common/pagination/paginate';
import type { Membership } from '../../organizations/membership.entity';
import { conditionHolds, type VisitorClaims } from '../adaptive-content';
import type { SiteRedirectMatch, SiteRedirectsSource } from '../site-redirects.port';
import type { Site } from '../site.entity';
import { SiteWrites } from '../site-writes';
import type { CreateSiteRedirectDto, ListSiteRedirectsQueryDto, UpdateSiteRedirectDto } from './dto/site-redirect.dto';
import { SOURCE_MAX, SOURCE_PATTERN } from './dto/site-redirect.dto';
import { appendSuffix, InputDestination, joinPath, parseDestination, siteSpacePath, sourceParts } from './redirect-destination';
import { SiteRedirect, SiteRedirectDestination } from './site-redirect.entity';
import { siteRedirectError } from '../site-readers.errors';
import { SiteRedirectsRepository, SiteSpacePlace } from './site-redirects.repository';

/** One result of a bulk upsert (the public `bulkUpsertSiteRedirects` answer). */
export type BulkResult =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

/** A redirect with the site it belongs to, for the presenter. */
export interface RedirectView {
  site: Site;
  redirect: SiteRedirect;
}

/**
 * Site redirects: members read them, admins write them (one transaction per request, under the
 * site's row lock), and the `SITE_REDIRECTS` port answers URL resolution: the live redirect of a
 * path (exact source first, then the longest wildcard), else the page that used to be at that path.
 */
@Injectable()
export class SiteRedirectsService implements SiteRedirectsSource {
  constructor(
    private readonly writes: SiteWrites,
    private readonly redirects: SiteRedirectsRepository,
  ) {}

  async list(caller: Membership, siteId: string, query: ListSiteRedirectsQueryDto): Promise<{ site: Site; page: Page<SiteRedirect> }> {
    const site = await this.writes.read(caller, siteId);
    return { site, page: await this.redirects.list(site.id, query) };
  }

  async create(caller: Membership, siteId: string, dto: CreateSiteRedirectDto): Promise<RedirectView> {
    const input = parseDestination(dto.destination, true);
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const draft = dto.draft ?? false;
      if (await this.redirects.bySource(site.id, dto.source, draft, em)) {
        throw siteRedirectError('site_redirect.source_taken', `Site ${site.id} already has a ${draft ? 'draft' : 'live'} redirect from ${dto.source}`);
      }
      const redirect = await this.insert(em, site.id, {
        source: dto.source,
        draft,
        captureWildcard: dto.captureWildcard ?? false,
        permanent: dto.permanent ?? false,
        destination: await this.stored(em, site.id, input),
      });
      return { site, redirect };
    });
  }

  async update(caller: Membership, siteId: string, redirectId: string, dto: UpdateSiteRedirectDto): Promise<RedirectView> {
    const input = dto.destination === undefined ? undefined : parseDestination(dto.destination, false);
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const redirect = await this.existing(em, site.id, redirectId);
      const source = dto.source ?? redirect.source;
      const draft = dto.draft ?? redirect.draft;
      if (source !== redirect.source || draft !== redirect.draft) {
        const clash = await this.redirects.bySource(site.id, source, draft, em);
        if (clash && clash.id !== redirect.id) {
          throw siteRedirectError('site_redirect.source_taken', `Site ${site.id} already has a ${draft ? 'draft' : 'live'} redirect from ${source}`);
        }
      }
      Object.assign(redirect, {
        source,
        ...sourceParts(source),
        draft,
        captureWildcard: dto.captureWildcard ?? redirect.captureWildcard,
        permanent: dto.permanent ?? redirect.permanent,
        destination: input ? await this.stored(em, site.id, input) : redirect.destination,
        updatedAt: new Date(),
      });
      await this.redirects.save(redirect, em);
      return { site, redirect };
    });
  }

  /** True when a redirect was deleted (205), false when there was none (204). */
  async delete(caller: Membership, siteId: string, redirectId: string): Promise<boolean> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      return this.redirects.delete(site.id, redirectId, em);
    });
  }

  /**
   * Creates, updates, deletes (destination null) or publishes (intent `publish`) redirects by source,
   * in one transaction. A body that does not have the public shape is refused whole (400); an item
   * whose destination names nothing of the site gets an `error` result and the others are applied.
   */
  async bulkUpsert(caller: Membership, siteId: string, items: Record<string, unknown>[]): Promise<BulkResult[]> {
    const parsed = items.map((item, index) => parseBulkItem(item, `redirects.${index}`));
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const results: BulkResult[] = [];
      for (const item of parsed) {
        if (item.intent === 'publish') {
          const draft = await this.redirects.bySource(site.id, item.source, true, em);
          if (!draft) {
            results.push({ status: 'error', source: item.source, draft: true, error: `No draft redirect from ${item.source}` });
            continue;
          }
          await this.redirects.publishDraft(site.id, item.source, draft.id, em);
          results.push({ status: 'published', source: item.source, draft: false, id: draft.id });
          continue;
        }
        const draft = item.intent === 'draft';
        const current = await this.redirects.bySource(site.id, item.source, draft, em);
        if (item.destination === null) {
          if (current) await this.redirects.delete(site.id, current.id, em);
          results.push(
            current
              ? { status: 'deleted', source: item.source, draft }
              : { status: 'error', source: item.source, draft, error: `No redirect from ${item.source}` },
          );
          continue;
        }
        let destination: SiteRedirectDestination;
        try {
          destination = await this.stored(em, site.id, item.destination);
        } catch (error) {
          results.push({ status: 'error', source: item.source, draft, error: (error as Error).message });
          continue;
        }
        if (current) {
          await this.redirects.update(
            current.id,
            { destination, captureWildcard: item.captureWildcard ?? current.captureWildcard, permanent: item.permanent ?? current.permanent },
            em,
          );
          results.push({ status: 'updated', source: item.source, draft, id: current.id });
        } else {
          const created = await this.insert(em, site.id, {
            source: item.source,
            draft,
            captureWildcard: item.captureWildcard ?? false,
            permanent: item.permanent ?? false,
            destination,
          });
          results.push({ status: 'created', source: item.source, draft, id: created.id });
        }
      }
      return results;
    });
  }

  /** `getSiteRedirectBySource`: the live redirect that matches `source` and where it leads (404 when none, or when its destination is gone). */
  /**
   * `getSiteRedirectBySource`. `claims`: the visitor's, when the caller reads as a visitor (a site API
   * token): a redirect whose destination the site hides from them (a section or site space whose
   * condition is false) is unknown to them, as what it leads to is.
   */
  async bySource(
    caller: Membership,
    siteId: string,
    source: string,
    claims: VisitorClaims | null = null,
  ): Promise<{ site: Site; redirect: SiteRedirect; location: string; external: boolean }> {
    const site = await this.writes.read(caller, siteId);
    const found = await this.resolveRedirect(site.id, source);
    if (!found || (claims !== null && !(await this.shownTo(site.id, found.redirect.destination, claims)))) {
      throw siteRedirectError('site_redirect.not_found', `No redirect from ${source} on site ${site.id}`);
    }
    return { site, ...found };
  }

  /** Whether a destination is shown to a visitor with `claims` (an external URL always is). */
  private async shownTo(siteId: string, destination: SiteRedirectDestination, claims: VisitorClaims): Promise<boolean> {
    if (destination.kind === 'external') return true;
    const conditions = await this.redirects.conditionsOf(
      siteId,
      destination.kind === 'site-section' ? { siteSectionId: destination.siteSectionId } : { siteSpaceId: destination.siteSpaceId },
    );
    if (!conditions) return false;
    return conditions.all.every((condition) => conditionHolds(condition, claims)) && conditions.any.some((condition) => conditionHolds(condition, claims));
  }

  /** The port (`SITE_REDIRECTS`): a live redirect of the site, else a moved page; null when neither. */
  async match(siteId: string, pathname: string): Promise<SiteRedirectMatch | null> {
    const path = pathname.startsWith('/') ? pathname : `/${pathname}`;
    if (path.length <= SOURCE_MAX) {
      const found = await this.resolveRedirect(siteId, path);
      if (found) return { location: found.location, external: found.external, permanent: found.redirect.permanent };
    }
    const moved = await this.movedPage(siteId, path);
    return moved ? { location: moved, external: false, permanent: true } : null;
  }

  private async resolveRedirect(siteId: string, pathname: string): Promise<{ redirect: SiteRedirect; location: string; external: boolean } | null> {
    const redirect = await this.redirects.match(siteId, pathname);
    if (!redirect) return null;
    const target = await this.locate(siteId, redirect.destination);
    if (!target) return null;
    const suffix = redirect.wildcard && redirect.captureWildcard ? pathname.slice(redirect.prefix.length) : '';
    return { redirect, location: appendSuffix(target.location, suffix, target.external), external: target.external };
  }

  /** Where a stored destination is now, relative to the site (or an external URL); null when what it names is gone. */
  private async locate(siteId: string, destination: SiteRedirectDestination): Promise<{ location: string; external: boolean } | null> {
    if (destination.kind === 'external') return { location: destination.url, external: true };
    if (destination.kind === 'site-section') {
      const path = await this.redirects.sectionPath(siteId, destination.siteSectionId);
      return path === null ? null : { location: `/${encodeURIComponent(path)}`, external: false };
    }
    const place = (await this.redirects.places(siteId)).find((row) => row.id === destination.siteSpaceId);
    if (!place) return null;
    if (destination.kind === 'site-space') return { location: siteSpacePath(place), external: false };
    const pagePath = await this.redirects.pagePath(place.revisionId, destination.pageId);
    return pagePath === null ? null : { location: joinPath(siteSpacePath(place), encodePath(pagePath)), external: false };
  }

  /**
   * The page that used to be at `pathname`: each site space whose place is a prefix of the path (its
   * canonical place, and the site's root for a default site space of the default section) proposes
   * the rest as an old path of its space; the longest place wins.
   */
  private async movedPage(siteId: string, pathname: string): Promise<string | null> {
    const places = await this.redirects.places(siteId);
    const decoded = safeDecode(pathname);
    if (decoded === null) return null;
    const candidates: { place: SiteSpacePlace; prefix: string; oldPath: string }[] = [];
    for (const place of places) {
      const prefixes = new Set([siteSpacePath(place)]);
      const section = place.sectionPath ? [`/${place.sectionPath}`, ...(place.sectionDefault ? [''] : [])] : [''];
      for (const start of section) {
        prefixes.add(`${start}/${place.path}`);
        if (place.isDefault) prefixes.add(start || '/');
      }
      for (const prefix of prefixes) {
        const base = safeDecode(prefix) ?? prefix;
        const head = base === '/' ? '/' : `${base}/`;
        if (!decoded.startsWith(head)) continue;
        const oldPath = trimEndChar(decoded.slice(head.length), '/');
        if (oldPath) candidates.push({ place, prefix: base, oldPath });
      }
    }
    if (candidates.length === 0) return null;
    const found = await this.redirects.movedPages(candidates.map(({ place, oldPath }) => ({ spaceId: place.spaceId, oldPath })));
    const best = candidates
      .filter((candidate) => found.some((row) => row.spaceId === candidate.place.spaceId && row.oldPath === candidate.oldPath))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0];
    if (!best) return null;
    const now = found.find((row) => row.spaceId === best.place.spaceId && row.oldPath === best.oldPath)!;
    return joinPath(siteSpacePath(best.place), encodePath(now.path));
  }

  private async existing(em: EntityManager, siteId: string, redirectId: string): Promise<SiteRedirect> {
    const redirect = await this.redirects.find(siteId, redirectId, em);
    if (!redirect) throw siteRedirectError('site_redirect.not_found', `Redirect ${redirectId} not found`);
    return redirect;
  }

  private async insert(
    em: EntityManager,
    siteId: string,
    fields: Pick<SiteRedirect, 'source' | 'draft' | 'captureWildcard' | 'permanent' | 'destination'>,
  ): Promise<SiteRedirect> {
    return this.redirects.insert(siteId, newId(), { ...fields, ...sourceParts(fields.source) }, em);
  }

  /** The stored form of a destination, checked against the site: what it names must exist (400 otherwise). */
  private async stored(em: EntityManager, siteId: string, input: InputDestination): Promise<SiteRedirectDestination> {
    if (input.kind === 'external') return input;
    if (input.kind === 'site-section') {
      if ((await this.redirects.sectionPath(siteId, input.siteSectionId, em)) === null) {
        throw siteRedirectError('site_redirect.invalid', `destination.siteSectionId: site section ${input.siteSectionId} is not in this site`);
      }
      return input;
    }
    const places = await this.redirects.places(siteId, em);
    if (input.kind === 'path') {
      for (const place of places.filter((row) => row.spaceId === input.spaceId)) {
        const pageId = await this.redirects.pageAt(place.revisionId, input.path, em);
        if (pageId) return { kind: 'site-page', siteSpaceId: place.id, pageId };
      }
      throw siteRedirectError('site_redirect.invalid', `destination.path: no page at ${input.path} in a space ${input.spaceId} of this site`);
    }
    const place = places.find((row) => row.id === input.siteSpaceId);
    if (!place) throw siteRedirectError('site_redirect.invalid', `destination.siteSpaceId: site space ${input.siteSpaceId} is not in this site`);
    if (input.kind === 'site-page' && (await this.redirects.pagePath(place.revisionId, input.pageId, em)) === null) {
      throw siteRedirectError('site_redirect.invalid', `destination.pageId: page ${input.pageId} is not in site space ${input.siteSpaceId}`);
    }
    return input;
  }
}

type BulkItem =
  | { intent: 'publish'; source: string }
  | { intent: 'live' | 'draft'; source: string; captureWildcard?: boolean; permanent?: boolean; destination: InputDestination | null };

/** One item of `bulkUpsertSiteRedirects`, checked against its public shape (400 naming the item otherwise). */
function parseBulkItem(item: Record<string, unknown>, where: string): BulkItem {
  const bad = (message: string) => siteRedirectError('site_redirect.invalid', `${where}.${message}`);
  const source = item.source;
  if (typeof source !== 'string' || source.length > SOURCE_MAX || !SOURCE_PATTERN.test(source)) throw bad('source: must be a redirect source path');
  const intent = item.intent ?? 'live';
  if (intent === 'publish') {
    const extra = Object.keys(item).find((key) => key !== 'source' && key !== 'intent');
    if (extra) throw bad(`${extra}: should not exist with intent publish`);
    return { intent, source };
  }
  if (intent !== 'live' && intent !== 'draft') throw bad('intent: must be one of publish, live, draft');
  const extra = Object.keys(item).find((key) => !['source', 'intent', 'captureWildcard', 'permanent', 'destination'].includes(key));
  if (extra) throw bad(`${extra}: should not exist`);
  for (const flag of ['captureWildcard', 'permanent'] as const) {
    if (item[flag] !== undefined && typeof item[flag] !== 'boolean') throw bad(`${flag}: must be a boolean`);
  }
  if (!('destination' in item)) throw bad('destination: is required (null deletes)');
  return {
    intent,
    source,
    captureWildcard: item.captureWildcard as boolean | undefined,
    permanent: item.permanent as boolean | undefined,
    destination: item.destination === null ? null : parseDestination(item.destination, true, `${where}.destination`),
  };
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function safeDecode(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}
