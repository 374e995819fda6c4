import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { publicSchema } from '../../common/openapi/public-schema';
import { FILES_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from './content.schemas';
import { ContentService } from './content.service';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';
import { SpaceAccess } from '../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { CONTENT_POLICY } from './content.policy';

/** A wildcard route parameter arrives as its segments; a single encoded parameter as one string. */
export function joinPath(value: string | string[]): string {
  return Array.isArray(value) ? value.join('/') : value;
}

/** The space's active content. */
@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/content')
@SpaceAction(CONTENT_POLICY.read)
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @ApiOperation({ operationId: 'getCurrentRevision', summary: "The space's active revision: page tree, files, reusable contents, variables" })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  revision(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: RevisionQueryDto) {
    return this.content.revision(access, undefined, query);
  }

  @Get('pages')
  @ApiOperation({ operationId: 'listPages', summary: 'The page tree of the active revision' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  pages(@CurrentSpaceAccess() access: SpaceAccess, @Query() _query: RevisionQueryDto) {
    return this.content.pages(access, undefined);
  }

  @Get('files')
  @ApiOperation({ operationId: 'listFiles', summary: 'Files of the active revision' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  files(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: RevisionFilesQueryDto) {
    return this.content.listFiles(access, undefined, query);
  }

  @Get('files/:fileId')
  @ApiOperation({ operationId: 'getFileById', summary: 'A file of the active revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  file(@CurrentSpaceAccess() access: SpaceAccess, @Param('fileId') fileId: string, @Query() _query: RevisionQueryDto) {
    return this.content.file(access, undefined, fileId);
  }

  @Get('page/:pageId')
  @ApiOperation({ operationId: 'getPageById', summary: 'A page of the active revision, with its body and sub-pages' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  page(@CurrentSpaceAccess() access: SpaceAccess, @Param('pageId') pageId: string, @Query() query: PageQueryDto) {
    return this.content.page(access, undefined, { pageId }, query);
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @ApiOperation({ operationId: 'getPageByPath', summary: 'A page of the active revision, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  pageByPath(@CurrentSpaceAccess() access: SpaceAccess, @Param('pagePath') pagePath: string | string[], @Query() query: PageQueryDto) {
    return this.content.page(access, undefined, { path: joinPath(pagePath) }, query);
  }
}
