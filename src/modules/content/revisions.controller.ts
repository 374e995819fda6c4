import { RawJson } from '../../common/http/raw-json';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { isSiteTokenRead, siteTokenClaims } from './reader-files/site-token-read';
import { NotForScripts, ScriptScope } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../common/access/site-access';
import { publicSchema } from '../../common/openapi/public-schema';
import { FILES_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from './content.schemas';
import {
  presentFile,
  presentFiles,
  presentPage,
  presentPageDocument,
  presentPageMetaLinks,
  presentReusableContent,
  presentReusableContentDocument,
  RevisionFileJson,
  RevisionReusableContentJson,
  RevisionFilesJson,
  RevisionPageJson,
  RevisionPageMetaLinksJson,
} from './content.presenter';
import { ContentService } from './content.service';
import { DocumentQueryDto, PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';
import { SpaceAccess } from '../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { CONTENT_POLICY } from './content.policy';
import { joinPath } from './page-path';
import { sendJsonStream } from '../../common/http/json-stream';
import { presentPagesStream, presentRevisionStream } from './revision-stream.presenter';
import { ReadFromReplica } from '../../database/read-from-replica';

/** Any revision of the space, by id (revisions are immutable, so these answers never change). */
@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/revisions/:revisionId')
@SpaceAction(CONTENT_POLICY.read)
export class RevisionsController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @ScriptScope('space:content:read', 'space:content:write')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getRevisionById', summary: 'A revision of the space' })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  async revision(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Query() query: RevisionQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const stream = await this.content.revisionStream(access, revisionId, { computed: query.computed });
    if (isSiteTokenRead(req)) stream.context = await this.content.forReaders(stream.context);
    await sendJsonStream(res, presentRevisionStream(stream, { metadata: query.metadata }));
  }

  @Get('pages')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listPagesInRevisionById', summary: 'The page tree of a revision' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  async pages(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Query() query: RevisionQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    await sendJsonStream(res, presentPagesStream(await this.content.pagesStream(access, revisionId, { computed: query.computed })));
  }

  @Get('files')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listFilesInRevisionById', summary: 'Files of a revision' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  async files(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Query() query: RevisionFilesQueryDto,
    @Req() req: Request,
  ): Promise<RevisionFilesJson> {
    const { context, page } = await this.content.listFiles(access, revisionId, query);
    return presentFiles(isSiteTokenRead(req) ? await this.content.forReaders(context) : context, page);
  }

  @Get('files/:fileId')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getFileInRevisionById', summary: 'A file of a revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  async file(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('fileId') fileId: string,
    @Query() _query: RevisionQueryDto,
    @Req() req: Request,
  ): Promise<RevisionFileJson> {
    const { context, file } = await this.content.file(access, revisionId, fileId);
    return presentFile(isSiteTokenRead(req) ? await this.content.forReaders(context) : context, file);
  }

  @Get('files/:fileId/download')
  @ApiOperation({ operationId: 'downloadFileInRevisionById', summary: "A file's bytes (its downloadURL); needs read access to the space" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file, with its content type' })
  async download(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('fileId') fileId: string,
    @Res() res: Response,
  ): Promise<void> {
    const { file, data } = await this.content.download(access, revisionId, fileId);
    const inline = file.contentType.startsWith('image/');
    res.set({
      'Content-Type': file.contentType,
      'Content-Length': String(data.length),
      'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      // The bytes of a file in a revision never change; only the token may stop being valid.
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: `"${file.blobId}"`,
      // Uploaded content must never run as a page of this origin (an SVG with a script, say).
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    res.end(data);
  }

  @Get('page/:pageId')
  @ScriptScope('space:content:read', 'space:content:write')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getPageInRevisionById', summary: 'A page of a revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  async page(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('pageId') pageId: string,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<RevisionPageJson | RawJson> {
    return presentPage(await this.content.page(access, revisionId, { pageId }, query, siteTokenClaims(req)), {
      format: query.format,
      refs: query['format.markdown.refs'],
    });
  }

  @Get('page/:pageId/document')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getPageDocumentInRevisionById', summary: "A page's body as a JSON document" })
  @ApiOkResponse({ schema: publicSchema('JSONDocument') })
  async pageDocument(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('pageId') pageId: string,
    @Query() query: DocumentQueryDto,
    @Req() req: Request,
  ): Promise<Record<string, unknown> | RawJson> {
    return presentPageDocument(await this.content.pageDocument(access, revisionId, pageId, query, siteTokenClaims(req)));
  }

  @Get('reusable-contents/:reusableContentId')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getReusableContentInRevisionById', summary: 'A reusable content of a revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionReusableContent') })
  async reusableContent(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('reusableContentId') reusableContentId: string,
    @Query() _query: RevisionQueryDto,
  ): Promise<RevisionReusableContentJson> {
    return presentReusableContent((await this.content.reusableContent(access, revisionId, reusableContentId)).reusable);
  }

  @Get('reusable-contents/:reusableContentId/document')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getReusableContentDocumentInRevisionById', summary: "A reusable content's body as a JSON document" })
  @ApiOkResponse({ schema: publicSchema('JSONDocument') })
  async reusableContentDocument(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('reusableContentId') reusableContentId: string,
    @Query() query: DocumentQueryDto,
    @Req() req: Request,
  ): Promise<Record<string, unknown>> {
    return presentReusableContentDocument(await this.content.reusableContentDocument(access, revisionId, reusableContentId, query, siteTokenClaims(req)));
  }

  @Get('page/:pageId/meta-links')
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listRevisionPageMetaLinks', summary: 'Canonical and alternate links of a page' })
  @ApiOkResponse({ schema: publicSchema('RevisionPageMetaLinks') })
  async pageMetaLinks(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('pageId') pageId: string,
  ): Promise<RevisionPageMetaLinksJson> {
    await this.content.onePage(access, revisionId, pageId);
    return presentPageMetaLinks();
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @SiteTokenContent()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'getPageInRevisionByPath', summary: 'A page of a revision, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  async pageByPath(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('pagePath') pagePath: string | string[],
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<RevisionPageJson | RawJson> {
    return presentPage(await this.content.page(access, revisionId, { path: joinPath(pagePath) }, query, siteTokenClaims(req)), {
      format: query.format,
      refs: query['format.markdown.refs'],
    });
  }
}
