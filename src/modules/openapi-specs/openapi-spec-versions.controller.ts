import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenOwnSite } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import type { OpenApiFilesystem } from './openapi-spec-content.entity';
import {
  OpenApiSpecContentJson,
  OpenApiSpecRawContentJson,
  OpenApiSpecVersionJson,
  presentOpenApiSpecContent,
  presentOpenApiSpecRawContent,
  presentOpenApiSpecVersion,
} from './openapi-spec.presenter';
import { OpenApiSpecsService, VersionSelector } from './openapi-specs.service';

/** Versions of a specification (section 4.18): immutable, newest first, by id or `latest`. */
@ApiTags('openapi')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'specSlug' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/openapi/:specSlug/versions')
export class OpenApiSpecVersionsController {
  constructor(
    private readonly specs: OpenApiSpecsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listOpenAPISpecVersions', summary: 'Versions of a specification, newest first' })
  @ApiOkResponse({ schema: publicListSchema('OpenAPISpecVersion') })
  async list(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string, @Query() query: ListQueryDto) {
    const { spec, page } = await this.specs.listVersions(caller, slug, query);
    return mapPage(page, (version) => presentOpenApiSpecVersion(spec, version, this.config));
  }

  // `latest` routes first: Express tries routes in order, and `latest` is also a possible `:versionId`.
  @Get('latest')
  @ApiOperation({ operationId: 'getLatestOpenAPISpecVersion', summary: 'The latest version of a specification' })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecVersion') })
  latest(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string): Promise<OpenApiSpecVersionJson> {
    return this.version(caller, slug, { latest: true });
  }

  @Get('latest/content')
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'getLatestOpenAPISpecVersionContent', summary: "The latest version's parsed files" })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecContent') })
  latestContent(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string): Promise<OpenApiSpecContentJson> {
    return this.content(caller, slug, { latest: true });
  }

  @Get('latest/content/raw')
  @ApiOperation({ operationId: 'getLatestOpenAPISpecVersionContentRaw', summary: "The latest version's entry file, exactly as submitted or fetched" })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecRawContent') })
  latestRaw(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string): Promise<OpenApiSpecRawContentJson> {
    return this.raw(caller, slug, { latest: true });
  }

  @Get(':versionId')
  @ApiOperation({ operationId: 'getOpenAPISpecVersionById', summary: 'A version of a specification' })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecVersion') })
  byId(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string, @Param('versionId') versionId: string): Promise<OpenApiSpecVersionJson> {
    return this.version(caller, slug, { id: versionId });
  }

  @Get(':versionId/content')
  @ApiOperation({ operationId: 'getOpenAPISpecVersionContentById', summary: "A version's parsed files" })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecContent') })
  contentById(
    @CurrentMembership() caller: Membership,
    @Param('specSlug') slug: string,
    @Param('versionId') versionId: string,
  ): Promise<OpenApiSpecContentJson> {
    return this.content(caller, slug, { id: versionId });
  }

  /** Not in the public description: the `url` of a version given as text points here. */
  @Get(':versionId/content/raw')
  @ApiOperation({ operationId: 'getOpenAPISpecVersionContentRawById', summary: "A version's entry file, exactly as submitted or fetched" })
  @ApiOkResponse({ schema: publicSchema('OpenAPISpecRawContent') })
  rawById(@CurrentMembership() caller: Membership, @Param('specSlug') slug: string, @Param('versionId') versionId: string): Promise<OpenApiSpecRawContentJson> {
    return this.raw(caller, slug, { id: versionId });
  }

  private async version(caller: Membership, slug: string, which: VersionSelector): Promise<OpenApiSpecVersionJson> {
    const { spec, version } = await this.specs.version(caller, slug, which);
    return presentOpenApiSpecVersion(spec, version, this.config);
  }

  private async content(caller: Membership, slug: string, which: VersionSelector): Promise<OpenApiSpecContentJson> {
    const { spec, version, content } = await this.specs.content(caller, slug, which, 'filesystem');
    return presentOpenApiSpecContent(spec, version, content.filesystem as OpenApiFilesystem, this.config);
  }

  private async raw(caller: Membership, slug: string, which: VersionSelector): Promise<OpenApiSpecRawContentJson> {
    const { content } = await this.specs.content(caller, slug, which, 'rawText');
    return presentOpenApiSpecRawContent(content.rawText as string, content.format);
  }
}
