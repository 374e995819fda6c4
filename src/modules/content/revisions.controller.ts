import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { publicSchema } from '../../common/openapi/public-schema';
import { joinPath } from './content.controller';
import { FILES_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from './content.schemas';
import { ContentService } from './content.service';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';
import { SpaceAccess } from '../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { CONTENT_POLICY } from './content.policy';

/** Any revision of the space, by id (revisions are immutable, so these answers never change). */
@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/revisions/:revisionId')
@SpaceAction(CONTENT_POLICY.read)
export class RevisionsController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @ApiOperation({ operationId: 'getRevisionById', summary: 'A revision of the space' })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  revision(@CurrentSpaceAccess() access: SpaceAccess, @Param('revisionId') revisionId: string, @Query() query: RevisionQueryDto) {
    return this.content.revision(access, revisionId, query);
  }

  @Get('pages')
  @ApiOperation({ operationId: 'listPagesInRevisionById', summary: 'The page tree of a revision' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  pages(@CurrentSpaceAccess() access: SpaceAccess, @Param('revisionId') revisionId: string, @Query() _query: RevisionQueryDto) {
    return this.content.pages(access, revisionId);
  }

  @Get('files')
  @ApiOperation({ operationId: 'listFilesInRevisionById', summary: 'Files of a revision' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  files(@CurrentSpaceAccess() access: SpaceAccess, @Param('revisionId') revisionId: string, @Query() query: RevisionFilesQueryDto) {
    return this.content.listFiles(access, revisionId, query);
  }

  @Get('files/:fileId')
  @ApiOperation({ operationId: 'getFileInRevisionById', summary: 'A file of a revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  file(@CurrentSpaceAccess() access: SpaceAccess, @Param('revisionId') revisionId: string, @Param('fileId') fileId: string, @Query() _query: RevisionQueryDto) {
    return this.content.file(access, revisionId, fileId);
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
  @ApiOperation({ operationId: 'getPageInRevisionById', summary: 'A page of a revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  page(@CurrentSpaceAccess() access: SpaceAccess, @Param('revisionId') revisionId: string, @Param('pageId') pageId: string, @Query() query: PageQueryDto) {
    return this.content.page(access, revisionId, { pageId }, query);
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @ApiOperation({ operationId: 'getPageInRevisionByPath', summary: 'A page of a revision, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  pageByPath(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Param('pagePath') pagePath: string | string[],
    @Query() query: PageQueryDto,
  ) {
    return this.content.page(access, revisionId, { path: joinPath(pagePath) }, query);
  }
}
