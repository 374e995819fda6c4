import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts, ScriptScope, ScriptScopeOnAllSpaces } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { SpaceAccess } from '../access/space-access.service';
import { MoveDto } from '../collections/dto/move.dto';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { User } from '../users/user.entity';
import { CreateSpaceDto, GetSpaceQueryDto, TransferSpaceDto, UpdateSpaceDto } from './dto/space.dto';
import { presentSpace, SpaceJson } from '../space-model/space.presenter';
import { SpacesService } from './spaces.service';
import { ReadFromReplica } from '../../database/read-from-replica';

@ApiTags('spaces')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1')
export class SpacesController {
  constructor(
    private readonly spaces: SpacesService,
    private readonly config: AppConfig,
  ) {}

  @Get('orgs/:organizationId/spaces')
  @OrgRole('guest')
  @ApiParam({ name: 'organizationId' })
  @ScriptScopeOnAllSpaces('space:metadata:read', 'space:metadata:write')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listSpacesInOrganizationById', summary: 'List the spaces of an organization, in their kept order' })
  @ApiOkResponse({ schema: publicListSchema('Space') })
  async list(@CurrentUser() user: User, @CurrentMembership() membership: Membership, @Query() query: ListQueryDto) {
    const page = await this.spaces.listInOrganization(user, membership, query);
    return mapPage(page, ({ space, permissions }) => presentSpace(space, permissions, this.config));
  }

  @Post('orgs/:organizationId/spaces')
  @OrgRole('guest')
  @HttpCode(201)
  @ApiParam({ name: 'organizationId' })
  @ApiOperation({ operationId: 'createSpace', summary: 'Create an empty space, at the top level or in a collection' })
  @ApiCreatedResponse({ schema: publicSchema('Space') })
  async create(
    @CurrentUser() user: User,
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateSpaceDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SpaceJson> {
    const json = this.present(await this.spaces.create(user, membership, dto));
    res.location(json.urls.location);
    return json;
  }

  @Get('spaces/:spaceId')
  @SpaceAction('view')
  @ScriptScope('space:metadata:read', 'space:metadata:write', 'space:content:read', 'space:content:write')
  @SiteTokenContent()
  @ApiOperation({ operationId: 'getSpaceById', summary: 'Get a space by its ID' })
  @ApiOkResponse({ schema: publicSchema('Space') })
  async get(@CurrentSpaceAccess() { space, permissions }: SpaceAccess, @Query() query: GetSpaceQueryDto): Promise<SpaceJson> {
    return presentSpace(space, permissions, this.config, { shareKey: await this.spaces.openingShareKey(space.id, query.shareKey) });
  }

  @Patch('spaces/:spaceId')
  @SpaceAction('admin')
  @ApiOperation({ operationId: 'updateSpaceById', summary: "Update a space's title, emoji, edit mode, default level, visibility or merge rules" })
  @ApiOkResponse({ schema: publicSchema('Space') })
  async update(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Body() dto: UpdateSpaceDto): Promise<SpaceJson> {
    return this.present(await this.spaces.update(user, spaceId, dto));
  }

  @Delete('spaces/:spaceId')
  @SpaceAction('admin')
  @HttpCode(205)
  @ApiOperation({ operationId: 'deleteSpaceById', summary: 'Delete a space; it can be restored during the retention period' })
  @ApiResponse({ status: 205, description: 'Space has been deleted' })
  async delete(@CurrentUser() user: User, @Param('spaceId') spaceId: string): Promise<void> {
    await this.spaces.delete(user, spaceId);
  }

  @Post('spaces/:spaceId/restore')
  @SpaceAction('admin', { includeDeleted: true })
  @HttpCode(200)
  @ApiOperation({ operationId: 'restoreSpace', summary: 'Restore a space deleted less than the retention period ago' })
  @ApiOkResponse({ schema: publicSchema('Space') })
  async restore(@CurrentUser() user: User, @Param('spaceId') spaceId: string): Promise<SpaceJson> {
    return this.present(await this.spaces.restore(user, spaceId));
  }

  @Post('spaces/:spaceId/duplicate')
  @SpaceAction('view')
  @HttpCode(201)
  @ApiOperation({ operationId: 'duplicateSpace', summary: 'Duplicate a space next to itself, with a copy of its content' })
  @ApiCreatedResponse({ schema: publicSchema('Space') })
  async duplicate(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Res({ passthrough: true }) res: Response): Promise<SpaceJson> {
    const json = this.present(await this.spaces.duplicate(user, access));
    res.location(json.urls.location);
    return json;
  }

  @Post('spaces/:spaceId/move')
  @SpaceAction('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveSpace', summary: 'Move a space to another collection and/or next to a sibling' })
  @ApiOkResponse({ schema: publicSchema('Space') })
  async move(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: MoveDto): Promise<SpaceJson> {
    return this.present(await this.spaces.move(user, access, dto));
  }

  @Post('spaces/:spaceId/transfer')
  @SpaceAction('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'transferSpace', summary: 'Transfer a space to another organization, optionally into one of its collections' })
  @ApiOkResponse({ schema: publicSchema('Space') })
  async transfer(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: TransferSpaceDto): Promise<SpaceJson> {
    return this.present(await this.spaces.transfer(user, access, dto));
  }

  private present({ space, permissions }: SpaceAccess): SpaceJson {
    return presentSpace(space, permissions, this.config);
  }
}
