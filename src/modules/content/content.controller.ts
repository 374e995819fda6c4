import { RawJson } from '../../common/http/raw-json';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isSiteTokenRead } from './reader-files/site-token-read';
import { NotForScripts, ScriptScope } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../common/access/site-access';
import { sendJsonStream } from '../../common/http/json-stream';
import { presentPagesStream, presentRevisionStream } from './revision-stream.presenter';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { publicSchema } from '../../common/openapi/public-schema';
import { FILES_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from './content.schemas';
import {
  presentFile,
  presentFiles,
  presentPage,
  presentPageMetaLinks,
  presentComputedDocument,
  presentReusableContent,
  RevisionFileJson,
  RevisionReusableContentJson,
  RevisionFilesJson,
  RevisionPageJson,
  RevisionPageMetaLinksJson,
} from './content.presenter';
import { ContentService } from './content.service';
import { ComputedDocumentDto, ComputedDocumentQueryDto } from './dto/computed-document.dto';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';
import { SpaceAccess } from '../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { CONTENT_POLICY } from './content.policy';
import { joinPath } from './page-path';
import { ReadFromReplica } from '../../database/read-from-replica';

/** The space's active content. */
@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/content')
@SpaceAction(CONTENT_POLICY.read)
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @ScriptScope('space:content:read', 'space:content:write')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getCurrentRevision', summary: "The space's active revision: page tree, files, reusable contents, variables" })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  async revision(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: RevisionQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    // Streamed from a cursor: a 10,000-page revision is tens of megabytes of JSON.
    const stream = await this.content.revisionStream(access, undefined, { computed: query.computed });
    if (isSiteTokenRead(req)) stream.context = await this.content.forReaders(stream.context);
    await sendJsonStream(res, presentRevisionStream(stream, { metadata: query.metadata }));
  }

  @Get('pages')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listPages', summary: 'The page tree of the active revision' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  async pages(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: RevisionQueryDto, @Res() res: Response): Promise<void> {
    await sendJsonStream(res, presentPagesStream(await this.content.pagesStream(access, undefined, { computed: query.computed })));
  }

  @Get('files')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listFiles', summary: 'Files of the active revision' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  async files(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: RevisionFilesQueryDto, @Req() req: Request): Promise<RevisionFilesJson> {
    const { context, page } = await this.content.listFiles(access, undefined, query);
    return presentFiles(isSiteTokenRead(req) ? await this.content.forReaders(context) : context, page);
  }

  @Get('files/:fileId')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getFileById', summary: 'A file of the active revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  async file(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('fileId') fileId: string,
    @Query() _query: RevisionQueryDto,
    @Req() req: Request,
  ): Promise<RevisionFileJson> {
    const { context, file } = await this.content.file(access, undefined, fileId);
    return presentFile(isSiteTokenRead(req) ? await this.content.forReaders(context) : context, file);
  }

  @Get('page/:pageId')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getPageById', summary: 'A page of the active revision, with its body and sub-pages' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  async page(@CurrentSpaceAccess() access: SpaceAccess, @Param('pageId') pageId: string, @Query() query: PageQueryDto): Promise<RevisionPageJson | RawJson> {
    return presentPage(await this.content.page(access, undefined, { pageId }, query), { format: query.format, refs: query['format.markdown.refs'] });
  }

  @Get('reusable-contents/:reusableContentId')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getReusableContentById', summary: 'A reusable content of the active revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionReusableContent') })
  async reusableContent(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('reusableContentId') reusableContentId: string,
    @Query() _query: RevisionQueryDto,
  ): Promise<RevisionReusableContentJson> {
    return presentReusableContent((await this.content.reusableContent(access, undefined, reusableContentId)).reusable);
  }

  @Post('computed/document')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'getComputedDocument',
    summary: 'The document of a computed source: builtin:openapi sources are computed here; other sources answer 422',
  })
  @ApiOkResponse({ schema: publicSchema('JSONDocument') })
  async computedDocument(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Query() _query: ComputedDocumentQueryDto,
    @Body() body: ComputedDocumentDto,
  ): Promise<Record<string, unknown>> {
    return presentComputedDocument(await this.content.computedDocument(access, body.source, body.seed));
  }

  @Get('page/:pageId/meta-links')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listSpacePageMetaLinks', summary: 'Canonical and alternate links of a page of the active revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionPageMetaLinks') })
  async pageMetaLinks(@CurrentSpaceAccess() access: SpaceAccess, @Param('pageId') pageId: string): Promise<RevisionPageMetaLinksJson> {
    await this.content.onePage(access, undefined, pageId);
    return presentPageMetaLinks();
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getPageByPath', summary: 'A page of the active revision, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  async pageByPath(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('pagePath') pagePath: string | string[],
    @Query() query: PageQueryDto,
  ): Promise<RevisionPageJson | RawJson> {
    return presentPage(await this.content.page(access, undefined, { path: joinPath(pagePath) }, query), {
      format: query.format,
      refs: query['format.markdown.refs'],
    });
  }
}
