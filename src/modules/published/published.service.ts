import { Inject, Injectable, Optional, UnauthorizedException } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { visitorClaims, type VisitorClaims } from '../sites/adaptive-content';
import { SITE_REDIRECTS, type SiteRedirectsSource } from '../sites/site-redirects.port';
import { publishedError } from './published.errors';
import { locate, rendererRoute, segmentsOf } from './published-url';
import { PublishedRepository } from './published.repository';
import type { SiteSnapshot } from './site-snapshot';
import { SiteTokenKeys } from './site-auth/site-token-keys';
import { canonical, signSiteToken, type SiteTokenInput } from './site-auth/site-token';
import { verifyVisitorJwt } from './site-auth/visitor-jwt';
import { contextIdOf, visibleLevels, visibleSpaceIds } from './visible-structure';
import { SITE_VISITOR_AUTH, withParam, type SiteVisitorAuthSource } from '../sites/visitor-auth.port';
import { SpaceAccessService } from '../access/space-access.service';
import type { User } from '../users/user.entity';
import type { SitePrincipal } from './site-auth/site-principal';

/** What the caller asks to resolve (the body of `resolvePublishedContentByUrl`, or the deprecated query). */
export interface ResolveInput {
  url: string;
  redirectOnError: boolean;
  jwtToken?: string;
  unsignedClaims?: Record<string, unknown>;
  /**
   * Who may see a change request's preview (`…/~/changes/{id}/…`): a signed-in user, who must be able
   * to view the change request's space, or a site token issued for that very preview. Anonymous callers
   * (and every other token) are never shown a draft: the preview URL is then unknown (404). Called only
   * for a preview URL, so an ordinary resolution never authenticates anyone.
   */
  previewer?: () => Promise<Previewer | undefined>;
}

/** A caller a preview may open for (see `ResolveInput.previewer`). */
export type Previewer = { user: User } | { siteToken: SitePrincipal };

/** The public `PublishedContentRedirect`. */
export type PublishedRedirect = { target: 'application' | 'content'; redirect: string } | { target: 'external'; site: string; redirect: string };

/** The public `PublishedSiteContent` (plus `noIndex` for unlisted sites). */
export interface PublishedContent {
  organization: string;
  site: string;
  siteSection?: string;
  siteSpace: string;
  space: string;
  revision: string;
  pathname: string;
  basePath: string;
  siteBasePath: string;
  canonicalUrl: string;
  apiToken: string;
  complete: boolean;
  shareKey?: string;
  /** Authenticated-access sessions only: a digest of the visitor context that changes what is rendered (`contextIdOf`). */
  contextId?: string;
  noIndex?: boolean;
  /** A change request's preview: its id, and `preview: true` (`revision` is then its head revision). */
  changeRequest?: string;
  preview?: boolean;
}

export type PublishedLookup = PublishedContent | PublishedRedirect;

const notFound = (url: string) => publishedError('published.not_found', `No published content found for ${url}`);

/** At most this many site tokens are kept signed in memory (they are deterministic: a cache, never a source of truth). */
const TOKEN_MEMO = 5000;
/** Answers kept per site snapshot (see `PublishedService.answers`). */
const ANSWER_MEMO = 2000;

/**
 * URL resolution (`POST /v1/urls/published`): host → site, visibility and visitor authentication,
 * then the path: section → site space (variant) → page. Answers the content the reader's renderer
 * then reads with the returned site API token, or a redirect (a level's default named explicitly, a
 * site redirect or a moved page, the visitor-auth fallback).
 */
@Injectable()
export class PublishedService {
  private readonly tokens = new Map<string, string>();
  /**
   * What an anonymous URL (no visitor JWT, no unsigned claims) walked to, per site snapshot: the walk
   * reads only the snapshot, immutable page paths and the site token of the UTC day (in the key), so
   * the answer lives exactly as long as the snapshot does. A preview, or a URL nothing serves (the
   * site's redirects are asked each time), is never kept.
   */
  private readonly answers = new WeakMap<SiteSnapshot, Map<string, PublishedLookup>>();

  constructor(
    private readonly config: AppConfig,
    private readonly repository: PublishedRepository,
    private readonly keys: SiteTokenKeys,
    private readonly access: SpaceAccessService,
    @Optional() @Inject(SITE_REDIRECTS) private readonly redirects?: SiteRedirectsSource,
    @Optional() @Inject(SITE_VISITOR_AUTH) private readonly visitorAuth?: SiteVisitorAuthSource,
  ) {}

  async resolve(input: ResolveInput): Promise<PublishedLookup> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw notFound(input.url);
    }
    const locator = locate(url, this.config.published);
    if (!locator) throw notFound(input.url);
    let shareKey = url.searchParams.get('share') ?? undefined;
    const siteKey =
      locator.kind === 'hostname' ? { hostname: locator.hostname } : { organizationHostname: locator.organizationHostname, basename: locator.segments[0] };
    let site = await this.repository.snapshot(siteKey, shareKey);
    if (!site || !site.published) throw notFound(input.url);
    let siteBase = `${locator.prefix}/`;
    let segments = locator.segments;
    if (locator.kind === 'organization' && site.matched) {
      siteBase = `${locator.prefix}/${encodeURIComponent(segments[0])}/`;
      segments = segments.slice(1);
    }
    // A share link's key is also the first segment below the site's base (`<site>/<key>/<path>`, the
    // form GitBook's renderer serves: it drops a URL's query before resolving it). The key then
    // belongs to the site's base, so the renderer's links keep it.
    if (site.visibility === 'share-link' && shareKey === undefined && segments.length > 0) {
      const keyed = await this.repository.snapshot(siteKey, segments[0]);
      if (keyed?.published && keyed.shareKeyOpens) {
        site = keyed;
        shareKey = segments[0];
        siteBase = `${siteBase}${encodeURIComponent(segments[0])}/`;
        segments = segments.slice(1);
      }
    }
    // An organization's address that did not name its site: a site's basename may still follow.
    const siteNamed = locator.kind === 'hostname' || site.matched;

    // Visibility: a share link's key, or a visitor's JWT.
    if (site.visibility === 'share-link' && !site.shareKeyOpens) throw notFound(input.url);
    const jwt = input.jwtToken ?? url.searchParams.get('jwt_token') ?? undefined;
    const visitorAuth = jwt !== undefined || site.visibility === 'visitor-auth' ? await this.visitorAuthOf(site) : null;
    let signed: Record<string, unknown> | null = null;
    if (jwt !== undefined && visitorAuth?.key) signed = await verifyVisitorJwt(jwt, visitorAuth.key);
    if (site.visibility === 'visitor-auth' && signed === null) {
      // A visitor with no token at all is sent to log in (the renderer asks `redirectOnError` only for a token
      // from its cookie); an invalid one only when asked, else 401 (a fresh token that fails must not loop).
      // `location`: where the visitor was going, below the site, so the backend can send them back there.
      if ((jwt === undefined || input.redirectOnError) && visitorAuth?.loginUrl) {
        return { target: 'external', site: site.id, redirect: withParam(visitorAuth.loginUrl, 'location', `/${segments.join('/')}`) };
      }
      throw new UnauthorizedException(
        jwt === undefined ? 'This site needs a visitor token (visitor.jwtToken or jwt_token)' : 'The visitor token is invalid or expired',
      );
    }
    const claims = visitorClaims(site.adaptiveSchema, signed, input.unsignedClaims ?? null);

    const anonymous = jwt === undefined && input.unsignedClaims === undefined;
    const memoKey = anonymous ? `${Math.floor(Date.now() / 86_400_000)}\u0000${input.url}` : undefined;
    let memo = this.answers.get(site);
    const kept = memoKey === undefined ? undefined : memo?.get(memoKey);
    if (kept) return kept;
    const found = await this.walk(url, site, siteBase, segments, claims, shareKey, input.previewer, siteNamed);
    if (found) {
      // Only an authenticated-access session has a context (public schema); its digest, never the claims.
      if ('apiToken' in found && site.visibility === 'visitor-auth') found.contextId = contextIdOf(site, claims);
      // Kept: content answers to anonymous URLs only (never a redirect, whose target the site's auth settings decide).
      if (memoKey !== undefined && 'apiToken' in found && !('preview' in found)) {
        if (!memo) this.answers.set(site, (memo = new Map()));
        if (memo.size >= ANSWER_MEMO) memo.clear();
        memo.set(memoKey, found);
      }
      return found;
    }
    return this.redirectOr404(url, input.url, site, siteBase, segments, claims);
  }

  /**
   * How the site's visitor JWTs are verified and where a visitor logs in: the site's own key and
   * `fallbackURL` (custom backend), or its visitor-auth integration's site-installation secret and
   * Quire's route to the integration (integration backend; none installed: nothing verifies).
   */
  private async visitorAuthOf(site: SiteSnapshot): Promise<{ key: string | null; loginUrl: string | null }> {
    if (site.backend === 'custom') return { key: site.privateKey, loginUrl: site.fallbackUrl };
    const backend = (await this.visitorAuth?.backendOf(site.id, site.organizationId)) ?? null;
    return { key: backend?.signingSecret ?? null, loginUrl: backend?.loginUrl ?? null };
  }

  /** The content at `segments` (below the site's base), a redirect to a level's own address, or null (nothing there). */
  private async walk(
    url: URL,
    site: SiteSnapshot,
    siteBase: string,
    segments: string[],
    claims: VisitorClaims,
    shareKey?: string,
    previewer?: () => Promise<Previewer | undefined>,
    siteNamed = true,
  ): Promise<PublishedLookup | null> {
    const levels = visibleLevels(site, claims);
    if (levels.length === 0) return null;
    let rest = segments;
    // The level served at the root (the default section, or the first shown when it is hidden) has no path segment of its own.
    let level = levels[0];
    let sectionPrefix = '';
    if (level.section !== null && rest.length > 0) {
      const named = levels.find((candidate) => candidate.section?.path === rest[0]);
      if (named === levels[0]) return this.contentRedirect(url, `${siteBase}${rest.slice(1).join('/')}`);
      if (named) {
        level = named;
        sectionPrefix = `${encodeURIComponent(named.section!.path)}/`;
        rest = rest.slice(1);
      }
    }
    let row = level.siteSpaces[0];
    let spacePrefix = '';
    if (rest.length > 0) {
      const named = level.siteSpaces.find((candidate) => candidate.path === rest[0]);
      if (named === level.siteSpaces[0]) return this.contentRedirect(url, `${siteBase}${sectionPrefix}${rest.slice(1).join('/')}`);
      if (named) {
        row = named;
        spacePrefix = `${encodeURIComponent(named.path)}/`;
        rest = rest.slice(1);
      }
    }
    // Whether the walk stopped on a default where a site's basename, a section's or a variant's path
    // could still be named: a URL that ends there is not the whole site address (`complete: false`),
    // so the renderer, which resolves several prefixes of a URL at once, does not read the segments
    // that follow as a page path of the default.
    const open = spacePrefix === '' && ((sectionPrefix === '' && (!siteNamed || levels.length > 1)) || level.siteSpaces.length > 1);
    // `~/changes/{id}/…`: a change request's preview, for a caller allowed to see it. Other `~` paths
    // (the renderer's own routes) are not published content.
    let preview: { id: string; revisionId: string } | null = null;
    if (rest[0] === '~' && rest[1] === 'changes' && rest.length >= 3) {
      preview = await this.preview(site, row.spaceId, rest[2], await previewer?.());
      if (!preview) return null;
      rest = rest.slice(3);
    }
    const revisionId = preview?.revisionId ?? row.revisionId;
    const pathname = rest.join('/');
    if (rest[0]?.startsWith('~') && rest[0] !== '~gitbook') return null;
    // A page path (or a preview) ends the site's own segments.
    const complete = pathname !== '' || preview !== null || !open;
    if (pathname !== '' && !(await this.repository.pageExists(revisionId, pathname))) {
      // The renderer's own routes below a level (sitemap, robots.txt, llms.txt, a page's markdown…):
      // it asks for them like pages, and serves them from the content answered here.
      const route = rendererRoute(rest);
      if (route === null || ('pagePath' in route && !(await this.repository.pageExists(revisionId, route.pagePath)))) return null;
    }

    const previewPrefix = preview ? `~/changes/${encodeURIComponent(preview.id)}/` : '';
    const basePath = `${siteBase}${sectionPrefix}${spacePrefix}${previewPrefix}`;
    const encoded = rest.map(encodeURIComponent).join('/');
    const content: PublishedContent = {
      organization: site.organizationId,
      site: site.id,
      ...(level.section ? { siteSection: level.section.id } : {}),
      siteSpace: row.id,
      space: row.spaceId,
      revision: revisionId,
      ...(preview ? { changeRequest: preview.id, preview: true } : {}),
      pathname: encoded,
      basePath,
      siteBasePath: siteBase,
      canonicalUrl: `${url.origin}${basePath}${encoded}`,
      apiToken: await this.token({
        organizationId: site.organizationId,
        siteId: site.id,
        siteSectionId: level.section?.id,
        siteSpaceId: row.id,
        spaceId: row.spaceId,
        spaces: visibleSpaceIds(levels),
        claims,
        changeRequestId: preview?.id,
      }),
      complete,
    };
    if (site.visibility === 'share-link' && shareKey !== undefined) content.shareKey = shareKey;
    if (site.visibility === 'unlisted') content.noIndex = true;
    return content;
  }

  /**
   * The change request `changeRequestId` of `spaceId` when `previewer` may see its preview on `site`:
   * a site token issued for this preview (same site, same change request), or a user who can view
   * the space. The change request must still be a draft or open. Null otherwise (the URL is then 404).
   */
  private async preview(
    site: SiteSnapshot,
    spaceId: string,
    changeRequestId: string,
    previewer?: Previewer,
  ): Promise<{ id: string; revisionId: string } | null> {
    if (!previewer) return null;
    if ('siteToken' in previewer) {
      const token = previewer.siteToken;
      if (token.siteId !== site.id || token.changeRequestId !== changeRequestId || token.spaceId !== spaceId) return null;
    } else {
      const allowed = await this.access.resolve(previewer.user, spaceId).then(
        (access) => access.permissions.view && access.space.organizationId === site.organizationId,
        () => false,
      );
      if (!allowed) return null;
    }
    return this.repository.previewable(changeRequestId, spaceId);
  }

  /** Before a 404: the site's redirects (and the old paths of moved pages), when the redirects module provides them. */
  private async redirectOr404(
    url: URL,
    asked: string,
    site: SiteSnapshot,
    siteBase: string,
    segments: string[],
    claims: VisitorClaims,
  ): Promise<PublishedLookup> {
    const match = await this.redirects?.match(site.id, `/${segments.join('/')}`);
    if (!match) throw notFound(asked);
    if (match.external) return { target: 'external', site: site.id, redirect: match.location };
    // Only to what this visitor is shown: a redirect into a hidden section or site space would name it.
    const target = segmentsOf(match.location.split(/[?#]/)[0]);
    if (target === null || !(await this.leadsToContent(url, site, siteBase, target, claims))) throw notFound(asked);
    return this.contentRedirect(url, `${siteBase.replace(/\/$/, '')}${match.location}`);
  }

  /** Whether `segments` (below the site's base) walk to content this visitor is shown, through at most two level redirects. */
  private async leadsToContent(url: URL, site: SiteSnapshot, siteBase: string, segments: string[], claims: VisitorClaims): Promise<boolean> {
    let rest: string[] | null = segments;
    for (let hop = 0; hop < 3 && rest !== null; hop++) {
      if (rest[0]?.startsWith('~')) return false;
      const found = await this.walk(url, site, siteBase, rest, claims);
      if (found === null || 'apiToken' in found) return found !== null;
      if (found.target !== 'content') return false;
      const pathname = new URL(found.redirect).pathname;
      rest = pathname.startsWith(siteBase) ? segmentsOf(pathname.slice(siteBase.length)) : null;
    }
    return false;
  }

  private contentRedirect(url: URL, path: string): PublishedRedirect {
    return { target: 'content', redirect: `${url.origin}${path}${url.search}` };
  }

  private async token(input: SiteTokenInput): Promise<string> {
    const day = Math.floor(Date.now() / 86_400_000);
    const memoKey = JSON.stringify([
      day,
      input.siteId,
      input.siteSectionId,
      input.siteSpaceId,
      input.spaceId,
      input.spaces,
      canonical(input.claims),
      input.changeRequestId ?? null,
    ]);
    let token = this.tokens.get(memoKey);
    if (token === undefined) {
      token = await signSiteToken(input, await this.keys.get());
      if (this.tokens.size >= TOKEN_MEMO) this.tokens.clear();
      this.tokens.set(memoKey, token);
    }
    return token;
  }
}
