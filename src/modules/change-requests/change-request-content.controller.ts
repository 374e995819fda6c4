import { RawJson } from '../../common/http/raw-json';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { AppConfig } from '../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { SpaceAccess } from '../access/space-access.service';
import { FILES_SCHEMA, IMPORT_RESULT_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from '../content/content.schemas';
import {
  presentFile,
  presentFiles,
  presentPageMetaLinks,
  RevisionPageMetaLinksJson,
  presentPage,
  presentPages,
  presentRevision,
  presentReusableContent,
  RevisionFileJson,
  RevisionReusableContentJson,
  RevisionFilesJson,
  RevisionJson,
  RevisionPageJson,
  RevisionPagesJson,
} from '../content/content.presenter';
import { ContentService } from '../content/content.service';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from '../content/dto/content-query.dto';
import { ImportContentDto } from '../content/dto/import-content.dto';
import { LinksQueryDto } from '../content/dto/links-query.dto';
import type { ImportResult } from '../content/import/website-import.service';
import { BACKLINKS_SCHEMA, LINKS_SCHEMA } from '../content/links/link.schemas';
import { BacklinksJson, LinksJson, presentBacklinks, presentLinks } from '../content/links/link.presenter';
import { LinksService } from '../content/links/links.service';
import { joinPath } from '../content/page-path';
import { User } from '../users/user.entity';
import { ChangeRequestContentService } from './change-request-content.service';
import { ChangeRequestImportService } from './change-request-import.service';
import { CHANGE_REQUEST_POLICY } from './change-request.policy';
import { ChangeRequestJson, ContentUpdateJson, presentChangeRequest, presentContentUpdate } from './change-request.presenter';
import { CONTENT_UPDATE_SCHEMA } from './change-request.schemas';
import { ChangeRequestsService } from './change-requests.service';
import { ContentUpdateQueryDto, UpdateChangeRequestContentDto } from './dto/change-request.dto';

/**
 * The content of a change request (section 4.7): the reads of section 4.3 on its head revision, the
 * batch authoring route and imports. Reads reuse the content module's services with the head's id.
 */
@ApiTags('change-requests')
@ApiBearerAuth()
@ApiParam({ name: 'changeRequestId', description: 'The change request ID or its number in the space' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/change-requests/:changeRequestId/content')
@SpaceAction(CHANGE_REQUEST_POLICY.read)
export class ChangeRequestContentController {
  constructor(
    private readonly changeRequests: ChangeRequestsService,
    private readonly authoring: ChangeRequestContentService,
    private readonly imports: ChangeRequestImportService,
    private readonly content: ContentService,
    private readonly links: LinksService,
    private readonly config: AppConfig,
  ) {}

  private async head(access: SpaceAccess, id: string): Promise<string> {
    return (await this.changeRequests.resolve(access.space.id, id)).revision;
  }

  @Get()
  @ApiOperation({ operationId: 'getRevisionOfChangeRequestById', summary: "The change request's head revision" })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  async revision(@CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string, @Query() query: RevisionQueryDto): Promise<RevisionJson> {
    return presentRevision(await this.content.revision(access, await this.head(access, id)), { metadata: query.metadata });
  }

  @Post()
  @HttpCode(200)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({
    operationId: 'updateChangeRequestContent',
    summary: 'Apply a batch of 1 to 50 content changes atomically, as one new revision of the change request',
  })
  @ApiOkResponse({ schema: CONTENT_UPDATE_SCHEMA })
  async update(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: ContentUpdateQueryDto,
    @Body() dto: UpdateChangeRequestContentDto,
  ): Promise<ChangeRequestJson | ContentUpdateJson> {
    const result = await this.authoring.apply(user, access, id, dto.changes);
    return query.compat ? presentChangeRequest(result.view, this.config) : presentContentUpdate(result, this.config);
  }

  @Get('pages')
  @ApiOperation({ operationId: 'listPagesInChangeRequest', summary: 'The page tree of the change request' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  async pages(@CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string, @Query() _query: RevisionQueryDto): Promise<RevisionPagesJson> {
    return presentPages(await this.content.pages(access, await this.head(access, id)));
  }

  @Get('files')
  @ApiOperation({ operationId: 'listFilesInChangeRequestById', summary: 'Files of the change request' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  async files(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: RevisionFilesQueryDto,
  ): Promise<RevisionFilesJson> {
    const { context, page } = await this.content.listFiles(access, await this.head(access, id), query);
    return presentFiles(context, page);
  }

  @Get('files/:fileId')
  @ApiOperation({ operationId: 'getFileInChangeRequestById', summary: 'A file of the change request' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  async file(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('fileId') fileId: string,
    @Query() _query: RevisionQueryDto,
  ): Promise<RevisionFileJson> {
    const { context, file } = await this.content.file(access, await this.head(access, id), fileId);
    return presentFile(context, file);
  }

  @Get('files/:fileId/backlinks')
  @ApiOperation({ operationId: 'listFileBacklinksInChangeRequest', summary: 'Pages of the change request that reference a file' })
  @ApiOkResponse({ schema: BACKLINKS_SCHEMA })
  async fileBacklinks(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('fileId') fileId: string,
    @Query() query: ListQueryDto,
  ): Promise<BacklinksJson> {
    return presentBacklinks(await this.links.backlinks(user, access, fileId, query, await this.head(access, id)));
  }

  @Get('page/:pageId')
  @ApiOperation({ operationId: 'getPageInChangeRequestById', summary: 'A page of the change request' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  async page(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pageId') pageId: string,
    @Query() query: PageQueryDto,
  ): Promise<RevisionPageJson | RawJson> {
    const pages = await this.content.page(access, await this.head(access, id), { pageId }, query);
    return presentPage(pages, { format: query.format, refs: query['format.markdown.refs'] });
  }

  @Get('reusable-contents/:reusableContentId')
  @ApiOperation({ operationId: 'getReusableContentInChangeRequestById', summary: 'A reusable content of the change request' })
  @ApiOkResponse({ schema: publicSchema('RevisionReusableContent') })
  async reusableContent(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('reusableContentId') reusableContentId: string,
    @Query() _query: RevisionQueryDto,
  ): Promise<RevisionReusableContentJson> {
    return presentReusableContent((await this.content.reusableContent(access, await this.head(access, id), reusableContentId)).reusable);
  }

  @Get('page/:pageId/meta-links')
  @SiteTokenContent()
  @ApiOperation({ operationId: 'listChangeRequestPageMetaLinks', summary: 'Canonical and alternate links of a page of the change request' })
  @ApiOkResponse({ schema: publicSchema('RevisionPageMetaLinks') })
  async pageMetaLinks(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pageId') pageId: string,
  ): Promise<RevisionPageMetaLinksJson> {
    await this.content.onePage(access, await this.head(access, id), pageId);
    return presentPageMetaLinks();
  }

  @Get('page/:pageId/links')
  @ApiOperation({ operationId: 'listPageLinksInChangeRequest', summary: 'Links in one page of the change request, with stats' })
  @ApiOkResponse({ schema: LINKS_SCHEMA })
  async pageLinks(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pageId') pageId: string,
    @Query() query: LinksQueryDto,
  ): Promise<LinksJson> {
    return presentLinks(await this.links.list(user, access, query, pageId, await this.head(access, id)));
  }

  @Get('page/:pageId/backlinks')
  @ApiOperation({ operationId: 'listPageBacklinksInChangeRequest', summary: 'Pages of the change request that link to a page' })
  @ApiOkResponse({ schema: BACKLINKS_SCHEMA })
  async pageBacklinks(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pageId') pageId: string,
    @Query() query: ListQueryDto,
  ): Promise<BacklinksJson> {
    return presentBacklinks(await this.links.pageBacklinks(user, access, pageId, query, await this.head(access, id)));
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @ApiOperation({ operationId: 'getPageInChangeRequestByPath', summary: 'A page of the change request, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  async pageByPath(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pagePath') pagePath: string | string[],
    @Query() query: PageQueryDto,
  ): Promise<RevisionPageJson | RawJson> {
    const pages = await this.content.page(access, await this.head(access, id), { path: joinPath(pagePath) }, query);
    return presentPage(pages, { format: query.format, refs: query['format.markdown.refs'] });
  }

  @Post('import')
  @HttpCode(201)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({ operationId: 'importContentInChangeRequest', summary: 'Import a website into the change request (after its top-level pages)' })
  @ApiCreatedResponse({ schema: IMPORT_RESULT_SCHEMA })
  importSite(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Body() dto: ImportContentDto,
  ): Promise<ImportResult> {
    return this.imports.import(user, access, id, dto);
  }

  @Post('page/:pageId/import')
  @HttpCode(201)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({ operationId: 'importContentInChangeRequestPage', summary: 'Import a website into the change request, under one page' })
  @ApiCreatedResponse({ schema: IMPORT_RESULT_SCHEMA })
  importUnderPage(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('pageId') pageId: string,
    @Body() dto: ImportContentDto,
  ): Promise<ImportResult> {
    return this.imports.import(user, access, id, dto, pageId);
  }
}
