import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { SiteTokenUnscoped } from '../../common/access/site-access';
import { AUTHENTICATOR, type Authenticator } from '../../common/auth/authenticator';
import { Public } from '../../common/auth/public.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { createValidationPipe } from '../../common/errors/validation';
import { ResolveUrlDto, ResolveUrlQueryDto } from './dto/resolve-url.dto';
import { readResolveBody } from './dto/resolve-url.reader';
import { PublishedService, type Previewer, type PublishedLookup } from './published.service';

/**
 * URL resolution for readers' renderers. Anonymous (a reader has no API token; what a URL opens is
 * decided by the site's visibility: share keys, visitor JWTs), so a site token may call it too.
 * A bearer, when one is sent, only matters for a change request's preview (`…/~/changes/{id}/…`), and
 * is read only when the URL walks to one: a user's token (who can view the space) or a site token
 * issued for that preview opens it; any other bearer, or a bad one, is ignored (the preview is then
 * unknown, like any URL nothing serves).
 */
/** For the bodies `readResolveBody` does not plainly accept: the global pipe's rules and messages. */
const validation = createValidationPipe();

@ApiTags('urls')
@Public()
@NotForScripts()
@Controller('v1/urls/published')
export class UrlsController {
  constructor(
    private readonly published: PublishedService,
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
  ) {}

  /** Who sent the request, when a preview may open for them (a user, or a site token); never a script. */
  private async previewer(req: Request): Promise<Previewer | undefined> {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!secret) return undefined;
    // The route is public (no bearer guard ran): authenticate into a probe, so the request itself carries no principal.
    const probe = {} as Request;
    const user = await this.authenticator.authenticate(secret, probe);
    if (!user || probe.scriptPrincipal) return undefined;
    return probe.sitePrincipal ? { siteToken: probe.sitePrincipal } : { user };
  }

  @Post()
  @HttpCode(200)
  @SiteTokenUnscoped()
  @ApiOperation({ operationId: 'resolvePublishedContentByUrl', summary: 'Resolve a URL of a published site to its content (or a redirect)' })
  @ApiBody({ type: ResolveUrlDto })
  @ApiOkResponse({ schema: publicSchema('PublishedSiteContentLookup') })
  @ApiNotFoundResponse({ description: 'No content found for the URL.' })
  async resolve(@Req() req: Request, @Body() body: unknown): Promise<PublishedLookup> {
    const dto = await readResolveBody(body, validation);
    return this.published.resolve({
      previewer: () => this.previewer(req),
      url: dto.url,
      redirectOnError: dto.redirectOnError ?? false,
      jwtToken: dto.visitor?.jwtToken,
      unsignedClaims: dto.visitor?.unsignedClaims,
    });
  }

  @Get()
  @SiteTokenUnscoped()
  @ApiOperation({ operationId: 'getPublishedContentByUrl', summary: 'Resolve a URL of a published site (deprecated: use the POST)', deprecated: true })
  @ApiOkResponse({ schema: publicSchema('PublishedSiteContentLookup') })
  @ApiNotFoundResponse({ description: 'No content found for the URL.' })
  async resolveByQuery(@Req() req: Request, @Query() query: ResolveUrlQueryDto): Promise<PublishedLookup> {
    return this.published.resolve({
      url: query.url,
      redirectOnError: query.redirectOnError ?? false,
      jwtToken: query.visitorAuthToken,
      previewer: () => this.previewer(req),
    });
  }
}
