import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { CollectionAccess } from '../access/collection-access.service';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrganizationMemberGuard } from '../organizations/organization-member.guard';
import { User } from '../users/user.entity';
import { CollectionJson, presentCollection } from './collection.presenter';
import { CollectionsService } from './collections.service';
import { CreateCollectionDto, ListCollectionsQueryDto, UpdateCollectionDto } from './dto/collection.dto';
import { MoveDto, TransferDto } from './dto/move.dto';

@ApiTags('collections')
@ApiBearerAuth()
@Controller('v1')
export class CollectionsController {
  constructor(
    private readonly collections: CollectionsService,
    private readonly config: AppConfig,
  ) {}

  @Get('orgs/:organizationId/collections')
  @UseGuards(OrganizationMemberGuard)
  @ApiParam({ name: 'organizationId' })
  @ApiOperation({ operationId: 'listCollectionsInOrganizationById', summary: 'List the collections of an organization, in their kept order' })
  @ApiOkResponse({ schema: publicListSchema('Collection') })
  async list(@CurrentUser() user: User, @CurrentMembership() membership: Membership, @Query() query: ListCollectionsQueryDto) {
    const page = await this.collections.listInOrganization(user, membership, query);
    return mapPage(page, ({ collection, permissions }) => presentCollection(collection, permissions, this.config));
  }

  @Post('orgs/:organizationId/collections')
  @UseGuards(OrganizationMemberGuard)
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
  @ApiOperation({ operationId: 'getCollectionById', summary: 'Get a collection by its ID' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async get(@CurrentUser() user: User, @Param('collectionId') collectionId: string): Promise<CollectionJson> {
    return this.present(await this.collections.get(user, collectionId));
  }

  @Patch('collections/:collectionId')
  @ApiOperation({ operationId: 'updateCollectionById', summary: "Update a collection's title, description or default level" })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async update(@CurrentUser() user: User, @Param('collectionId') collectionId: string, @Body() dto: UpdateCollectionDto): Promise<CollectionJson> {
    return this.present(await this.collections.update(user, collectionId, dto));
  }

  @Delete('collections/:collectionId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteCollectionById', summary: 'Delete an empty collection (409 while it holds spaces or collections)' })
  @ApiNoContentResponse()
  async delete(@CurrentUser() user: User, @Param('collectionId') collectionId: string): Promise<void> {
    await this.collections.delete(user, collectionId);
  }

  @Post('collections/:collectionId/move')
  @HttpCode(200)
  @ApiOperation({ operationId: 'moveCollection', summary: 'Move a collection to another parent and/or next to a sibling' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async move(@CurrentUser() user: User, @Param('collectionId') collectionId: string, @Body() dto: MoveDto): Promise<CollectionJson> {
    return this.present(await this.collections.move(user, collectionId, dto));
  }

  @Post('collections/:collectionId/transfer')
  @HttpCode(200)
  @ApiOperation({ operationId: 'transferCollection', summary: 'Transfer a collection and its content to another organization' })
  @ApiOkResponse({ schema: publicSchema('Collection') })
  async transfer(@CurrentUser() user: User, @Param('collectionId') collectionId: string, @Body() dto: TransferDto): Promise<CollectionJson> {
    return this.present(await this.collections.transfer(user, collectionId, dto));
  }

  private present({ collection, permissions }: CollectionAccess): CollectionJson {
    return presentCollection(collection, permissions, this.config);
  }
}
