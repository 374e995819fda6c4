import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { SiteTokenUnscoped } from '../../common/access/site-access';
import { Public } from '../../common/auth/public.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { ResolveUrlDto, ResolveUrlQueryDto } from './dto/resolve-url.dto';
import { PublishedService, type PublishedLookup } from './published.service';

/**
 * URL resolution for readers' renderers. Anonymous (a reader has no API token; what a URL opens is
 * decided by the site's visibility: share keys, visitor JWTs), so a site token may call it too.
 */
@ApiTags('urls')
@Public()
@NotForScripts()
@Controller('v1/urls/published')
export class UrlsController {
  constructor(private readonly published: PublishedService) {}

  @Post()
  @HttpCode(200)
  @SiteTokenUnscoped()
  @ApiOperation({ operationId: 'resolvePublishedContentByUrl', summary: 'Resolve a URL of a published site to its content (or a redirect)' })
  @ApiBody({ type: ResolveUrlDto })
  @ApiOkResponse({ schema: publicSchema('PublishedSiteContentLookup') })
  @ApiNotFoundResponse({ description: 'No content found for the URL.' })
  resolve(@Body() dto: ResolveUrlDto): Promise<PublishedLookup> {
    return this.published.resolve({
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
  resolveByQuery(@Query() query: ResolveUrlQueryDto): Promise<PublishedLookup> {
    return this.published.resolve({ url: query.url, redirectOnError: query.redirectOnError ?? false, jwtToken: query.visitorAuthToken });
  }
}
