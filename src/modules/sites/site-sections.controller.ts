import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import type { User } from '../users/user.entity';
import {
  AddSectionDto,
  AddSectionToGroupDto,
  CreateSectionGroupDto,
  ListSectionsQueryDto,
  MoveSectionDto,
  MoveSectionGroupDto,
  UpdateSectionDto,
  UpdateSectionGroupDto,
} from './dto/structure.dto';
import { presentSection, presentSectionGroup, SiteSectionGroupJson, SiteSectionJson } from './site.presenter';
import type { SectionGroupRow, SectionRow, SiteView } from './site.read-model';
import { SiteSectionsService } from './site-sections.service';

/** Sections and section groups (sections 4.11, 4.12): members read; changes need the `create` role. */
@ApiTags('sites')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId')
export class SiteSectionsController {
  constructor(
    private readonly sections: SiteSectionsService,
    private readonly config: AppConfig,
  ) {}

  @Get('sections')
  @ApiOperation({ operationId: 'listSiteSections', summary: "The site's sections, oldest first" })
  @ApiOkResponse({ schema: publicListSchema('SiteSection') })
  async list(@CurrentUser() user: User, @CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListSectionsQueryDto) {
    const view = await this.sections.listSections(user, caller, siteId, query);
    return mapPage(view.value, (row) => presentSection(row, { ...view, config: this.config }));
  }

  @Post('sections')
  @ApiOperation({ operationId: 'addSectionToSite', summary: 'Add a section holding a space (the first section takes the root site spaces)' })
  @ApiCreatedResponse({ schema: publicSchema('SiteSection') })
  async add(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body() dto: AddSectionDto,
  ): Promise<SiteSectionJson> {
    return this.section(await this.sections.addSection(user, caller, siteId, dto));
  }

  @Patch('sections/:siteSectionId')
  @ApiOperation({ operationId: 'updateSiteSectionById', summary: 'Change a section' })
  @ApiOkResponse({ schema: publicSchema('SiteSection') })
  async update(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionId') sectionId: string,
    @Body() dto: UpdateSectionDto,
  ): Promise<SiteSectionJson> {
    return this.section(await this.sections.updateSection(user, caller, siteId, sectionId, dto));
  }

  @Delete('sections/:siteSectionId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteSiteSectionById', summary: 'Delete a section and its site spaces' })
  @ApiNoContentResponse({ description: 'The section was deleted' })
  async delete(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSectionId') sectionId: string): Promise<void> {
    await this.sections.deleteSection(caller, siteId, sectionId);
  }

  @Post('sections/:siteSectionId/move')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveSiteSection', summary: 'Move a section among its siblings' })
  @ApiOkResponse({ schema: publicSchema('SiteSection') })
  async move(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionId') sectionId: string,
    @Body() dto: MoveSectionDto,
  ): Promise<SiteSectionJson> {
    return this.section(await this.sections.moveSection(user, caller, siteId, sectionId, dto));
  }

  @Get('section-groups')
  @ApiOperation({ operationId: 'listSiteSectionGroups', summary: "The site's section groups, oldest first" })
  @ApiOkResponse({ schema: publicListSchema('SiteSectionGroup') })
  async listGroups(@CurrentUser() user: User, @CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListQueryDto) {
    const view = await this.sections.listGroups(user, caller, siteId, query);
    return mapPage(view.value, (row) => presentSectionGroup(row, { ...view, config: this.config }));
  }

  @Post('section-groups')
  @ApiOperation({ operationId: 'addSectionGroupToSite', summary: 'Create a section group, with sections moved into it' })
  @ApiCreatedResponse({ schema: publicSchema('SiteSectionGroup') })
  async createGroup(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body() dto: CreateSectionGroupDto,
  ): Promise<SiteSectionGroupJson> {
    return this.group(await this.sections.createGroup(user, caller, siteId, dto));
  }

  @Patch('section-groups/:siteSectionGroupId')
  @ApiOperation({ operationId: 'updateSiteSectionGroupById', summary: 'Rename a section group or change its icon' })
  @ApiOkResponse({ schema: publicSchema('SiteSectionGroup') })
  async updateGroup(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionGroupId') groupId: string,
    @Body() dto: UpdateSectionGroupDto,
  ): Promise<SiteSectionGroupJson> {
    return this.group(await this.sections.updateGroup(user, caller, siteId, groupId, dto));
  }

  @Delete('section-groups/:siteSectionGroupId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteSiteSectionGroupById', summary: 'Delete a section group (its sections stay, at the root)' })
  @ApiNoContentResponse({ description: 'The section group was deleted' })
  async deleteGroup(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Param('siteSectionGroupId') groupId: string): Promise<void> {
    await this.sections.deleteGroup(caller, siteId, groupId);
  }

  @Post('section-groups/:siteSectionGroupId/sections')
  @HttpCode(200)
  @ApiOperation({ operationId: 'addSectionToSiteSectionGroup', summary: 'Put a section at the end of a group (Quire operation; section 4.12)' })
  @ApiOkResponse({ schema: publicSchema('SiteSectionGroup') })
  async addToGroup(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionGroupId') groupId: string,
    @Body() dto: AddSectionToGroupDto,
  ): Promise<SiteSectionGroupJson> {
    return this.group(await this.sections.addSectionToGroup(user, caller, siteId, groupId, dto.sectionId));
  }

  @Delete('section-groups/:siteSectionGroupId/sections/:siteSectionId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeSectionFromSiteSectionGroup',
    summary: 'Take a section out of a group, to the end of the root (Quire operation; section 4.12)',
  })
  @ApiNoContentResponse({ description: 'The section left the group' })
  async removeFromGroup(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionGroupId') groupId: string,
    @Param('siteSectionId') sectionId: string,
  ): Promise<void> {
    await this.sections.removeSectionFromGroup(caller, siteId, groupId, sectionId);
  }

  @Post('section-groups/:siteSectionGroupId/move')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveSiteSectionGroup', summary: 'Move a section group among the root items' })
  @ApiOkResponse({ schema: publicSchema('SiteSectionGroup') })
  async moveGroup(
    @CurrentUser() user: User,
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Param('siteSectionGroupId') groupId: string,
    @Body() dto: MoveSectionGroupDto,
  ): Promise<SiteSectionGroupJson> {
    return this.group(await this.sections.moveGroup(user, caller, siteId, groupId, dto));
  }

  private section(view: SiteView<SectionRow>): SiteSectionJson {
    return presentSection(view.value, { ...view, config: this.config });
  }

  private group(view: SiteView<SectionGroupRow>): SiteSectionGroupJson {
    return presentSectionGroup(view.value, { ...view, config: this.config });
  }
}
