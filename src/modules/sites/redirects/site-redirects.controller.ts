import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens, SiteTokenOwnSite } from '../../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../../common/openapi/public-schema';
import { mapPage } from '../../../common/pagination/paginate';
import { AppConfig } from '../../../config/app-config';
import { Membership } from '../../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../../organizations/organization-member.guard';
import {
  BulkUpsertSiteRedirectsDto,
  CreateSiteRedirectDto,
  ListSiteRedirectsQueryDto,
  SiteRedirectBySourceQueryDto,
  UpdateSiteRedirectDto,
} from './dto/site-redirect.dto';
import { presentRedirectTarget, presentSiteRedirect, SiteRedirectJson } from './site-redirect.presenter';
import { BulkResult, SiteRedirectsService } from './site-redirects.service';

/** Site redirects (public `site-redirect` operations): members read, admins write. */
@ApiTags('sites')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'siteId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId')
export class SiteRedirectsController {
  constructor(
    private readonly redirects: SiteRedirectsService,
    private readonly config: AppConfig,
  ) {}

  @Get('redirects')
  @ApiOperation({ operationId: 'listSiteRedirects', summary: "List a site's redirects (live by default, or drafts)" })
  @ApiOkResponse({ schema: publicListSchema('SiteRedirect') })
  async list(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListSiteRedirectsQueryDto) {
    return mapPage((await this.redirects.list(caller, siteId, query)).page, presentSiteRedirect);
  }

  @Post('redirects')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'createSiteRedirect', summary: 'Create a redirect (admins only)' })
  @ApiCreatedResponse({ schema: publicSchema('SiteRedirect') })
  async create(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: CreateSiteRedirectDto): Promise<SiteRedirectJson> {
    return presentSiteRedirect((await this.redirects.create(caller, siteId, dto)).redirect);
  }

  @Put('redirects')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'bulkUpsertSiteRedirects', summary: 'Create, update, delete or publish up to 500 redirects by source (admins only)' })
  @ApiOkResponse({ description: 'One result per redirect, in order' })
  async bulk(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body() dto: BulkUpsertSiteRedirectsDto,
  ): Promise<{ results: BulkResult[] }> {
    return { results: await this.redirects.bulkUpsert(caller, siteId, dto.redirects) };
  }

  @Patch('redirects/:siteRedirectId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateSiteRedirectById', summary: 'Change a redirect (admins only)' })
  @ApiOkResponse({ schema: publicSchema('SiteRedirect') })
  async update(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteRedirectId') redirectId: string,
    @Body() dto: UpdateSiteRedirectDto,
  ): Promise<SiteRedirectJson> {
    return presentSiteRedirect((await this.redirects.update(caller, siteId, redirectId, dto)).redirect);
  }

  @Delete('redirects/:siteRedirectId')
  @OrgRole('admin')
  @HttpCode(205)
  @ApiOperation({ operationId: 'deleteSiteRedirectById', summary: 'Delete a redirect (205; 204 when there was none)' })
  @ApiResponse({ status: 205, description: 'Site redirect deleted' })
  @ApiResponse({ status: 204, description: 'Site redirect did not exist' })
  async delete(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteRedirectId') redirectId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    if (!(await this.redirects.delete(caller, siteId, redirectId))) res.status(204);
  }

  @Get('redirect')
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'getSiteRedirectBySource', summary: 'The live redirect matching a path, and where it leads' })
  @ApiOkResponse({ description: '{ redirect: SiteRedirect, target }' })
  async bySource(@Req() req: Request, @CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: SiteRedirectBySourceQueryDto) {
    // A site token is told only of redirects to what its audience is shown.
    return presentRedirectTarget(await this.redirects.bySource(caller, siteId, query.source, req.sitePrincipal?.claims ?? null), this.config);
  }
}
