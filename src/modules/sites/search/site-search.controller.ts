import { Body, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens, SiteTokenOwnSite } from '../../../common/access/site-access';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { AppConfig } from '../../../config/app-config';
import { Membership } from '../../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../../organizations/organization-member.guard';
import { SiteWrites } from '../site-writes';
import { siteError } from '../site.errors';
import { SiteSearchDto } from './dto/site-search.dto';
import { presentSiteSearch } from './site-search.presenter';
import { SiteSearchService } from './site-search.service';

/**
 * The visitor's claims when the caller is a site API token (the site-token authenticator sets
 * `sitePrincipal` on the request, its guard a stand-in reader membership); null for a member's own
 * token, who searches what the site shows to its editors.
 */
function visitorClaimsOf(req: Request): Record<string, unknown> | null {
  return (req as Request & { sitePrincipal?: { claims?: Record<string, unknown> } }).sitePrincipal?.claims ?? null;
}

/** The search box of a published site (`searchSiteContent`) and its warm-up. */
@ApiTags('sites')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'siteId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId/search')
export class SiteSearchController {
  constructor(
    private readonly search: SiteSearchService,
    private readonly writes: SiteWrites,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'searchSiteContent', summary: "Search a published site's content: pages grouped by space, best first" })
  @ApiOkResponse({ description: 'List of SearchSpaceResult' })
  async find(
    @Req() req: Request,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Query() list: ListQueryDto,
    @Body() body: SiteSearchDto,
  ) {
    return presentSiteSearch(await this.search.search(caller, siteId, body, list, visitorClaimsOf(req)), body.query, this.config);
  }

  @Post('prewarm')
  @HttpCode(204)
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'prewarmSiteSearch', summary: 'Accepted: the indexes are always warm (nothing to do)' })
  @ApiNoContentResponse({ description: 'Search cache warmup accepted' })
  async prewarm(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<void> {
    const site = await this.writes.read(caller, siteId);
    if (!site.published) throw siteError('site.not_found', `Site ${siteId} is not published`);
  }
}
