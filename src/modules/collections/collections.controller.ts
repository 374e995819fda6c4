import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { CollectionAccess } from '../access/collection-access.service';
import { CollectionAction, CurrentCollectionAccess } from '../access/route-access.guard';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { User } from '../users/user.entity';
import { CollectionJson, presentCollection } from './collection.presenter';
import { CollectionsService } from './collections.service';
import { CreateCollectionDto, ListCollectionsQueryDto, UpdateCollectionDto } from './dto/collection.dto';
import { MoveDto, TransferDto } from './dto/move.dto';
import { ReadFromReplica } from '../../database/read-from-replica';

@ApiTags('collections')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1')
export class CollectionsController {
  constructor(
    private readonly collections: CollectionsService,
    private readonly config: AppConfig,
  ) {}

  @Get('orgs/:organizationId/collections')
  @OrgRole('guest')
  @ApiParam({ name: 'organizationId' })
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listCollectionsInOrganizationById', summary: 'List the collections of an organization, in their kept order' })
  @ApiOkResponse({ schema: publicListSchema('Collection') })
  async list(@CurrentUser() user: User, @CurrentMembership() membership: Membership, @Query() query: ListCollectionsQueryDto) {
    const page = await this.collections.listInOrganization(user, membership, query);
    return mapPage(page, ({ collection, permissions }) => presentCollection(collection, permissions, this.config));
  }

  @Post('orgs/:organizationId/collections')
  @OrgRole('guest')
  @HttpCode(201)
  @ApiParam({ name: 'organizationId' })
  @ApiOperation({ operationId: 'createCollection', summary: 'Create a collection, at the top level or in a parent collection' })
  @ApiCreatedResponse({ schema: publicSchema('Collection') })
  async create(
    @CurrentUser() user: User,
    @CurrentMembership() membership: Membership,
    @Body() dto: CreateCollectionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CollectionJson> {
    const json = this.present(await this.collections.create(user, membership, dto));
    res.location(json.urls.location);
    return json;
  }

  @Get('collections/:collectionId')
  @CollectionAction('view')
  @ApiOperation({ operationId: 'getCollectionById', summary: 'Get a collection by its ID' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  get(@CurrentCollectionAccess() access: CollectionAccess): CollectionJson {
    return this.present(access);
  }

  @Patch('collections/:collectionId')
  @CollectionAction('admin')
  @ApiOperation({ operationId: 'updateCollectionById', summary: "Update a collection's title, description or default level" })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async update(@CurrentUser() user: User, @CurrentCollectionAccess() access: CollectionAccess, @Body() dto: UpdateCollectionDto): Promise<CollectionJson> {
    return this.present(await this.collections.update(user, access, dto));
  }

  @Delete('collections/:collectionId')
  @CollectionAction('admin')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteCollectionById', summary: 'Delete an empty collection (409 while it holds spaces or collections)' })
  @ApiNoContentResponse()
  async delete(@CurrentCollectionAccess() access: CollectionAccess): Promise<void> {
    await this.collections.delete(access);
  }

  @Post('collections/:collectionId/move')
  @CollectionAction('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveCollection', summary: 'Move a collection to another parent and/or next to a sibling' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async move(@CurrentUser() user: User, @CurrentCollectionAccess() access: CollectionAccess, @Body() dto: MoveDto): Promise<CollectionJson> {
    return this.present(await this.collections.move(user, access, dto));
  }

  @Post('collections/:collectionId/transfer')
  @CollectionAction('admin')
  @HttpCode(200)
  @ApiOperation({ operationId: 'transferCollection', summary: 'Transfer a collection and its content to another organization' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async transfer(@CurrentUser() user: User, @CurrentCollectionAccess() access: CollectionAccess, @Body() dto: TransferDto): Promise<CollectionJson> {
    return this.present(await this.collections.transfer(user, access, dto));
  }

  private present({ collection, permissions }: CollectionAccess): CollectionJson {
    return presentCollection(collection, permissions, this.config);
  }
}
