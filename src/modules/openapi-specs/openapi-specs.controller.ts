import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResetContentResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { CreateOpenApiSpecDto, PutOpenApiSpecDto, UpdateOpenApiSpecDto } from './dto/openapi-spec.dto';
import { OpenApiSpec } from './openapi-spec.entity';
import { openApiSpecPermissions } from './openapi-spec.policy';
import { OpenApiSpecJson, presentOpenApiSpec } from './openapi-spec.presenter';
import { OpenApiSpecsService } from './openapi-specs.service';

/**
 * OpenAPI specifications of an organization. Members (not guests) read them; creating and changing
 * them takes the organization's `createOpenAPISpec` permission (role create or above), which the
 * service checks (the route guard knows only guest, member and admin).
 */
@ApiTags('openapi')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/openapi')
export class OpenApiSpecsController {
  constructor(
    private readonly specs: OpenApiSpecsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listOpenAPISpecs', summary: 'List the OpenAPI specifications of an organization (by slug)' })
  @ApiOkResponse({ schema: publicListSchema('OpenAPISpec') })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListQueryDto) {
    return mapPage(await this.specs.list(caller, query), (spec) => this.present(caller, spec));
  }

  @Post()
  @ApiOperation({ operationId: 'createOpenAPISpec', summary: 'Create a specification from a URL or a text (needs createOpenAPISpec)' })
  @ApiCreatedResponse({ schema: publicSchema('OpenAPISpec') })
  async create(@CurrentMembership() caller: Membership, @Body() dto: CreateOpenApiSpecDto): Promise<OpenApiSpecJson> {
    return this.present(caller, await this.specs.create(caller, dto));
  }

  @Get(':specSlug')
  @ApiOperation({ operationId: 'getOpenAPISpecBySlug', summary: 'A specification' })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpec') })
  async get(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string): Promise<OpenApiSpecJson> {
    return this.present(caller, await this.specs.get(caller, slug));
  }

  @Put(':specSlug')
  @ApiOperation({
    operationId: 'createOrUpdateOpenAPISpecBySlug',
    summary: 'Create the specification, or replace its source (a new version only when the content changed)',
  })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpec'), description: 'The specification existed' })
  @ApiCreatedResponse({ schema: publicSchema('OpenAPISpec'), description: 'The specification was created' })
  async put(
    @CurrentMembership() caller: Membership,
    @Param('specSlug') slug: string,
    @Body() dto: PutOpenApiSpecDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OpenApiSpecJson> {
    const result = await this.specs.put(caller, slug, dto.source);
    res.status(result.created ? 201 : 200);
    return this.present(caller, result.spec);
  }

  @Patch(':specSlug')
  @ApiOperation({ operationId: 'updateOpenAPISpecBySlug', summary: 'Change the visibility of a specification' })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpec') })
  async update(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string, @Body() dto: UpdateOpenApiSpecDto): Promise<OpenApiSpecJson> {
    return this.present(caller, await this.specs.setVisibility(caller, slug, dto.visibility));
  }

  @Delete(':specSlug')
  @HttpCode(205)
  @ApiOperation({ operationId: 'deleteOpenAPISpecBySlug', summary: 'Delete a specification and its versions' })
  @ApiResetContentResponse({ description: 'The specification was deleted' })
  @ApiNoContentResponse({ description: 'There was no such specification' })
  async delete(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string, @Res({ passthrough: true }) res: Response): Promise<void> {
    if (!(await this.specs.delete(caller, slug))) res.status(204);
  }

  private present(caller: Membership, spec: OpenApiSpec): OpenApiSpecJson {
    return presentOpenApiSpec(spec, openApiSpecPermissions(caller), this.config);
  }
}
