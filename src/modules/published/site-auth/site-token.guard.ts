import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { SITE_ACCESS, type SiteAccessDeclaration } from '../../../common/access/site-access';
import { routeMetadata } from '../../../common/metadata/route-metadata';
import { spacePermissions } from '../../access/access.policy';
import type { SpaceAccess } from '../../access/space-access.service';
import type { Membership } from '../../organizations/membership.entity';
import { Space } from '../../space-model/space.entity';
import { publishedError } from '../published.errors';
import { PublishedRepository } from '../published.repository';
import { visibleLevels, visibleSpaceIds } from '../visible-structure';
import type { SitePrincipal } from './site-principal';

/** Methods a site token may use at all: reads, and the few declared POSTs that read or record (render, track). Never PUT, PATCH, DELETE. */
const READER_METHODS = new Set(['GET', 'HEAD', 'POST']);

/**
 * Global guard, after the bearer guard: a request made with a site API token reaches only a route
 * that declares it (`@SiteTokenContent`, `@SiteTokenOwnSite`, `@SiteTokenUnscoped`; anything else, or
 * nothing, is 403), only while its site is published, and only inside what the site shows the
 * token's audience today: the organization and site must be the token's, a space must be one the
 * site shows to the token's claims now (404 otherwise, like any outsider), a revision must be the
 * space's live one, and a change request only the one whose preview the token was issued for. The
 * routes then get a read-only access (`read` level, a stand-in membership with role `read`). User
 * and script tokens pass untouched.
 */
@Injectable()
export class SiteTokenGuard implements CanActivate {
  private readonly declarationOf: (context: ExecutionContext) => SiteAccessDeclaration | undefined;

  constructor(
    reflector: Reflector,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: PublishedRepository,
  ) {
    this.declarationOf = routeMetadata<SiteAccessDeclaration>(reflector, SITE_ACCESS);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request & { spaceAccess?: SpaceAccess }>();
    const principal = request.sitePrincipal;
    if (!principal) return true;
    return this.check(request, principal, this.declarationOf(context));
  }

  private async check(
    request: Request & { spaceAccess?: SpaceAccess },
    principal: SitePrincipal,
    declaration: SiteAccessDeclaration | undefined,
  ): Promise<boolean> {
    const route = `${request.method} ${request.route?.path ?? request.path}`;
    const forbidden = (why: string) => publishedError('published.site_token_forbidden', `A site token cannot call ${route}: ${why}`);
    const notFound = (what: string) => publishedError('published.not_found', `${what} not found`);
    if (!declaration || declaration.site === 'none') throw forbidden('the route is not open to site tokens');
    if (!READER_METHODS.has(request.method)) throw forbidden('site tokens never write');
    const params = request.params as Record<string, string | undefined>;

    // A token outlives nothing: once its site is unpublished (or gone), it opens no route at all.
    const site = await this.repository.snapshot({ siteId: principal.siteId });
    if (!site || !site.published || site.organizationId !== principal.organizationId) throw forbidden('its site is not published');
    if (declaration.site === 'unscoped') {
      if (params.organizationId || params.siteId || params.spaceId) throw forbidden('the route names an organization, site or space');
      return true;
    }
    if (params.organizationId !== undefined && params.organizationId !== principal.organizationId) throw notFound(`Organization ${params.organizationId}`);
    if (params.siteId !== undefined && params.siteId !== principal.siteId) throw notFound(`Site ${params.siteId}`);
    request.membership = readerMembership(principal, request.user?.id ?? `site:${principal.siteId}`);

    if (declaration.site === 'site') {
      if (params.organizationId === undefined) throw forbidden('the route names no organization');
      return true;
    }

    // content: a space the site shows this audience now, its live revision, no draft.
    const spaceId = params.spaceId;
    if (spaceId === undefined) throw forbidden('the route names no space');
    const shown = visibleSpaceIds(visibleLevels(site, principal.claims));
    if (!shown.includes(spaceId)) throw notFound(`Space ${spaceId}`);
    const space = await this.dataSource.manager.findOneBy(Space, { id: spaceId });
    if (!space || space.deletedAt !== null || space.organizationId !== principal.organizationId) throw notFound(`Space ${spaceId}`);
    // A draft only through the preview the token was issued for: its change request, in its space, while
    // still a draft or open, and no revision but the space's live one or that change request's head now.
    const preview =
      principal.changeRequestId !== undefined && spaceId === principal.spaceId ? await this.repository.previewable(principal.changeRequestId, spaceId) : null;
    if (params.changeRequestId !== undefined && (preview === null || params.changeRequestId !== preview.id))
      throw notFound(`Change request ${params.changeRequestId}`);
    if (params.revisionId !== undefined && params.revisionId !== space.revisionId && params.revisionId !== preview?.revisionId) {
      throw notFound(`Revision ${params.revisionId}`);
    }
    request.spaceAccess = { space, level: 'read', permissions: spacePermissions('read', space), organizationRole: null };
    return true;
  }
}

/** What the organization's routes see of a site token: a reader with role `read`, never an admin. */
function readerMembership(principal: SitePrincipal, userId: string): Membership {
  return { organizationId: principal.organizationId, userId, role: 'read', joinedAt: new Date(0), lastSeenAt: null, sso: false, disabled: false } as Membership;
}
