import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { NotForScripts, ScriptScope } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenOwnSite } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import type { User } from '../users/user.entity';
import {
  CreateShareLinkDto,
  CreateSiteDto,
  ListShareLinksQueryDto,
  ListSitesQueryDto,
  ShareKeyQueryDto,
  UpdateAdaptiveSchemaDto,
  UpdateShareLinkDto,
  UpdateSiteDto,
} from './dto/site.dto';
import { SortStructureDto } from './dto/structure.dto';
import { sitePermissions } from './site.policy';
import {
  presentSection,
  presentSectionGroup,
  presentShareLink,
  presentSite,
  presentSiteSpace,
  presentStructure,
  ShareLinkJson,
  SiteJson,
  SiteStructureJson,
  withAuthUrls,
} from './site.presenter';
import type { SiteRow, SiteView } from './site.read-model';
import { SiteStructureService, StructureItemRow } from './site-structure.service';
import { SitesService } from './sites.service';

/**
 * Sites (section 4.9) and the neighbouring operations of the public description: unpublish, share
 * links, the structure and its sort. Members read; the site policy decides the rest (`SiteWrites`).
 */
@ApiTags('sites')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites')
export class SitesController {
  constructor(
    private readonly sites: SitesService,
    private readonly structure: SiteStructureService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listSites', summary: "List the organization's sites" })
  @ApiOkResponse({ schema: publicListSchema('Site') })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListSitesQueryDto) {
    return mapPage(await this.sites.list(caller, query), (row) => this.present(caller, row));
  }

  @Post()
  @OrgRole('admin')
  @ApiOperation({ operationId: 'createSite', summary: 'Create a site (admins only)' })
  @ApiCreatedResponse({ schema: publicSchema('Site') })
  async create(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Body() dto: CreateSiteDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SiteJson> {
    const json = this.present(caller, await this.sites.create(user, caller, dto));
    res.location(json.urls.location);
    return json;
  }

  @Get(':siteId')
  @ApiOperation({ operationId: 'getSiteById', summary: 'Get a site' })
  @ApiOkResponse({ schema: publicSchema('Site') })
  async get(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<SiteJson> {
    return this.present(caller, await this.sites.get(caller, siteId));
  }

  @Patch(':siteId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateSiteById', summary: "Change a site's settings (admins only)" })
  @ApiOkResponse({ schema: publicSchema('Site') })
  async update(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: UpdateSiteDto): Promise<SiteJson> {
    return this.present(caller, await this.sites.update(caller, siteId, dto));
  }

  @Delete(':siteId')
  @HttpCode(204)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'deleteSiteById', summary: 'Delete a site with its site spaces, sections, groups and share links (admins only)' })
  @ApiNoContentResponse({ description: 'The site was deleted' })
  async delete(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<void> {
    await this.sites.delete(caller, siteId);
  }

  @Post(':siteId/publish')
  @HttpCode(200)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'publishSite', summary: 'Publish a site (it needs at least one site space)' })
  @ApiOkResponse({ schema: publicSchema('Site') })
  async publish(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<SiteJson> {
    return this.present(caller, await this.sites.publish(caller, siteId));
  }

  @Post(':siteId/unpublish')
  @HttpCode(200)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'unpublishSite', summary: 'Take a site offline' })
  @ApiOkResponse({ schema: publicSchema('Site') })
  async unpublish(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<SiteJson> {
    return this.present(caller, await this.sites.unpublish(caller, siteId));
  }

  // --- adaptive content ------------------------------------------------------------------------------

  @Get(':siteId/adaptive-schema')
  @ScriptScope('site:adaptive:read', 'site:adaptive:write')
  @ApiOperation({ operationId: 'getSiteAdaptiveSchema', summary: "The site's visitor schema" })
  @ApiOkResponse({ schema: publicSchema('SiteAdaptiveSchema') })
  async adaptiveSchema(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string) {
    const { jsonSchema, updatedAt } = await this.sites.adaptiveSchema(caller, siteId);
    return { object: 'site-adaptive-schema', jsonSchema, updatedAt: updatedAt.toISOString() };
  }

  @Put(':siteId/adaptive-schema')
  @OrgRole('admin')
  @ScriptScope('site:adaptive:write')
  @ApiOperation({ operationId: 'updateSiteAdaptiveSchema', summary: "Replace the site's visitor schema (JSON Schema draft-07 of boolean claims)" })
  @ApiOkResponse({ schema: publicSchema('SiteAdaptiveSchema') })
  async setAdaptiveSchema(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: UpdateAdaptiveSchemaDto) {
    const { jsonSchema, updatedAt } = await this.sites.setAdaptiveSchema(caller, siteId, dto.jsonSchema);
    return { object: 'site-adaptive-schema', jsonSchema, updatedAt: updatedAt.toISOString() };
  }

  @Get(':siteId/adaptive-schema/template-conditions')
  @ApiOperation({ operationId: 'listSiteAdaptiveTemplateConditions', summary: "Condition templates, one per claim of the site's schema" })
  async templateConditions(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string) {
    return { items: await this.sites.templateConditions(caller, siteId) };
  }

  // --- published profile and structure ---------------------------------------------------------------

  @Get(':siteId/published')
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'getPublishedContentSite', summary: 'What a renderer needs to serve the site' })
  @ApiOkResponse({ schema: publicSchema('PublishedContentSite') })
  async published(
    @Req() req: Request,
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Query() query: ShareKeyQueryDto,
  ) {
    // A site token sees what its site shows its visitor audience; a member sees the whole structure.
    const view = await this.sites.published(user, caller, siteId, query.shareKey, req.sitePrincipal?.claims ?? null);
    const context = { ...view, config: this.config };
    return {
      object: 'published-content-site',
      site: withAuthUrls(this.present(caller, view.value.site), view.value.authUrls),
      structure: presentStructure(view.value.structure, context),
      customizations: view.value.customizations,
      scripts: view.value.scripts,
    };
  }

  @Get(':siteId/structure')
  @ApiOperation({ operationId: 'getSiteStructure', summary: "The site's tree in order" })
  @ApiOkResponse({ schema: publicSchema('SiteStructure') })
  async getStructure(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Query() query: ShareKeyQueryDto,
  ): Promise<SiteStructureJson> {
    const view = await this.structure.getStructure(user, caller, siteId, query.shareKey);
    return presentStructure(view.value, { ...view, config: this.config });
  }

  @Patch(':siteId/structure/sort')
  @ApiOperation({ operationId: 'sortSiteStructure', summary: 'Move a site space, section or group among the siblings of its level' })
  @ApiOkResponse({ schema: publicSchema('SiteStructureItem') })
  async sort(@CurrentUser() user: User, @CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: SortStructureDto) {
    return presentItem(await this.structure.sort(user, caller, siteId, dto), this.config);
  }

  // --- customization -----------------------------------------------------------------------------------

  @Get(':siteId/customization')
  @ApiOperation({ operationId: 'getSiteCustomizationById', summary: "The site's customization settings (the defaults until set)" })
  @ApiOkResponse({ schema: publicSchema('SiteCustomizationSettings') })
  customization(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string) {
    return this.sites.customization(caller, siteId);
  }

  @Put(':siteId/customization')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateSiteCustomizationById', summary: "Replace the site's customization settings" })
  @ApiBody({ schema: publicSchema('SiteCustomizationSettingsInput') })
  @ApiOkResponse({ schema: publicSchema('SiteCustomizationSettings') })
  // The body is checked against the public schema by the service (too rich for a DTO).
  setCustomization(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() body: unknown) {
    return this.sites.setCustomization(caller, siteId, body);
  }

  // --- share links --------------------------------------------------------------------------------------

  @Get(':siteId/share-links')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'listSiteShareLinks', summary: "The site's share links (admins only: they carry the keys)" })
  @ApiOkResponse({ schema: publicListSchema('ShareLink') })
  async listShareLinks(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListShareLinksQueryDto) {
    const { site, page } = await this.sites.listShareLinks(caller, siteId, query);
    return mapPage(page, (link) => presentShareLink(link, site, this.config));
  }

  @Post(':siteId/share-links')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'createSiteShareLink', summary: 'Create a share link with a new secret key' })
  @ApiCreatedResponse({ schema: publicSchema('ShareLink') })
  async createShareLink(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: CreateShareLinkDto): Promise<ShareLinkJson> {
    const { site, link } = await this.sites.createShareLink(caller, siteId, dto);
    return presentShareLink(link, site, this.config);
  }

  @Patch(':siteId/share-links/:shareLinkId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateSiteShareLinkById', summary: 'Rename, activate or deactivate a share link' })
  @ApiOkResponse({ schema: publicSchema('ShareLink') })
  async updateShareLink(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('shareLinkId') shareLinkId: string,
    @Body() dto: UpdateShareLinkDto,
  ): Promise<ShareLinkJson> {
    const { site, link } = await this.sites.updateShareLink(caller, siteId, shareLinkId, dto);
    return presentShareLink(link, site, this.config);
  }

  @Delete(':siteId/share-links/:shareLinkId')
  @HttpCode(204)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'deleteSiteShareLinkById', summary: 'Delete a share link: its key opens nothing any more' })
  @ApiNoContentResponse({ description: 'The share link was deleted' })
  async deleteShareLink(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('shareLinkId') shareLinkId: string): Promise<void> {
    await this.sites.deleteShareLink(caller, siteId, shareLinkId);
  }

  private present(caller: Membership, row: SiteRow): SiteJson {
    return presentSite(row, sitePermissions(caller.role), this.config);
  }
}

function presentItem(view: SiteView<StructureItemRow>, config: AppConfig) {
  const context = { ...view, config };
  const item = view.value;
  if (item.type === 'site-space') return presentSiteSpace(item.row, context);
  if (item.type === 'site-section') return presentSection(item.row, context);
  return presentSectionGroup(item.row, context);
}
