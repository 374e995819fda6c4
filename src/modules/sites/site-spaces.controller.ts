import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import type { User } from '../users/user.entity';
import { AddSiteSpaceDto, DuplicateSiteSpaceDto, ListSiteSpacesQueryDto, MoveSiteSpaceDto, UpdateSiteSpaceDto } from './dto/structure.dto';
import { presentSiteSpace, SiteSpaceJson } from './site.presenter';
import type { SiteSpaceRow, SiteView } from './site.read-model';
import { SiteSpacesService } from './site-spaces.service';
import { SitesService } from './sites.service';

/** Site spaces (section 4.10): members read; changes need the `create` role (the site policy). */
@ApiTags('sites')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId/site-spaces')
export class SiteSpacesController {
  constructor(
    private readonly siteSpaces: SiteSpacesService,
    private readonly sites: SitesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listSiteSpaces', summary: "The site's site spaces, oldest first" })
  @ApiOkResponse({ schema: publicListSchema('SiteSpace') })
  async list(@CurrentUser() user: User, @CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListSiteSpacesQueryDto) {
    const view = await this.siteSpaces.listSiteSpaces(user, caller, siteId, query);
    return mapPage(view.value, (row) => presentSiteSpace(row, { ...view, config: this.config }));
  }

  @Post()
  @ApiOperation({ operationId: 'addSpaceToSite', summary: 'Show a space on the site (in the default section, or at the root without sections)' })
  @ApiCreatedResponse({ schema: publicSchema('SiteSpace') })
  async add(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body() dto: AddSiteSpaceDto,
  ): Promise<SiteSpaceJson> {
    return this.present(await this.siteSpaces.addSiteSpace(user, caller, siteId, dto));
  }

  @Patch(':siteSpaceId')
  @ApiOperation({ operationId: 'updateSiteSpaceById', summary: "Change a site space's path, condition or space" })
  @ApiOkResponse({ schema: publicSchema('SiteSpace') })
  async update(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSpaceId') siteSpaceId: string,
    @Body() dto: UpdateSiteSpaceDto,
  ): Promise<SiteSpaceJson> {
    return this.present(await this.siteSpaces.updateSiteSpace(user, caller, siteId, siteSpaceId, dto));
  }

  @Delete(':siteSpaceId')
  @HttpCode(205)
  @ApiOperation({ operationId: 'deleteSiteSpaceById', summary: 'Remove a site space (the next one becomes the default when it was)' })
  @ApiResponse({ status: 205, description: 'The site space was removed' })
  async delete(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSpaceId') siteSpaceId: string): Promise<void> {
    await this.siteSpaces.deleteSiteSpace(caller, siteId, siteSpaceId);
  }

  @Post(':siteSpaceId/move')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveSiteSpace', summary: 'Move a site space among its siblings (deprecated: use sortSiteStructure)', deprecated: true })
  @ApiOkResponse({ schema: publicSchema('SiteSpace') })
  async move(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSpaceId') siteSpaceId: string,
    @Body() dto: MoveSiteSpaceDto,
  ): Promise<SiteSpaceJson> {
    return this.present(await this.siteSpaces.moveSiteSpace(user, caller, siteId, siteSpaceId, dto));
  }

  @Post(':siteSpaceId/duplicate')
  @ApiOperation({ operationId: 'duplicateSiteSpace', summary: 'Show the same space again, at the end of the same level' })
  @ApiCreatedResponse({ schema: publicSchema('SiteSpace') })
  async duplicate(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSpaceId') siteSpaceId: string,
    // Validated (only `draft: false` is accepted), nothing to read.
    @Body() _dto: DuplicateSiteSpaceDto,
  ): Promise<SiteSpaceJson> {
    return this.present(await this.siteSpaces.duplicateSiteSpace(user, caller, siteId, siteSpaceId));
  }

  @Get(':siteSpaceId/customization')
  @ApiOperation({ operationId: 'getSiteSpaceCustomizationById', summary: "The site space's settings: the site's, with its overrides" })
  @ApiOkResponse({ schema: publicSchema('SiteCustomizationSettings') })
  customization(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSpaceId') siteSpaceId: string) {
    return this.sites.siteSpaceCustomization(caller, siteId, siteSpaceId);
  }

  @Patch(':siteSpaceId/customization')
  @OrgRole('admin')
  @ApiOperation({
    operationId: 'overrideSiteSpaceCustomizationById',
    summary: "Override some of the site's settings for this site space (null resets a member)",
  })
  @ApiBody({ schema: { type: 'object', additionalProperties: true, description: 'Members of SiteCustomizationSettings to override; null resets one' } })
  @ApiOkResponse({ schema: publicSchema('SiteCustomizationSettings') })
  // The body is checked by the service, merged into the overrides, against the public schema.
  override(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSpaceId') siteSpaceId: string, @Body() body: unknown) {
    return this.sites.overrideSiteSpaceCustomization(caller, siteId, siteSpaceId, body);
  }

  @Delete(':siteSpaceId/customization')
  @HttpCode(205)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'deleteSiteSpaceCustomizationById', summary: "Drop the site space's overrides" })
  @ApiResponse({ status: 205, description: 'The overrides were dropped' })
  async resetCustomization(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSpaceId') siteSpaceId: string): Promise<void> {
    await this.sites.resetSiteSpaceCustomization(caller, siteId, siteSpaceId);
  }

  private present(view: SiteView<SiteSpaceRow>): SiteSpaceJson {
    return presentSiteSpace(view.value, { ...view, config: this.config });
  }
}
