import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicSchema } from '../../common/openapi/public-schema';
import { User } from '../users/user.entity';
import { FILES_SCHEMA, PAGE_BY_PATH_SCHEMA, PAGES_SCHEMA } from './content.schemas';
import { ContentService } from './content.service';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';

/** A wildcard route parameter arrives as its segments; a single encoded parameter as one string. */
export function joinPath(value: string | string[]): string {
  return Array.isArray(value) ? value.join('/') : value;
}

/** The space's active content. */
@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/content')
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @ApiOperation({ operationId: 'getCurrentRevision', summary: "The space's active revision: page tree, files, reusable contents, variables" })
  @ApiOkResponse({ schema: publicSchema('Revision') })
  revision(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Query() query: RevisionQueryDto) {
    return this.content.revision(user, spaceId, undefined, query);
  }

  @Get('pages')
  @ApiOperation({ operationId: 'listPages', summary: 'The page tree of the active revision' })
  @ApiOkResponse({ schema: PAGES_SCHEMA })
  pages(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Query() _query: RevisionQueryDto) {
    return this.content.pages(user, spaceId, undefined);
  }

  @Get('files')
  @ApiOperation({ operationId: 'listFiles', summary: 'Files of the active revision' })
  @ApiOkResponse({ schema: FILES_SCHEMA })
  files(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Query() query: RevisionFilesQueryDto) {
    return this.content.listFiles(user, spaceId, undefined, query);
  }

  @Get('files/:fileId')
  @ApiOperation({ operationId: 'getFileById', summary: 'A file of the active revision' })
  @ApiOkResponse({ schema: publicSchema('RevisionFile') })
  file(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Param('fileId') fileId: string, @Query() _query: RevisionQueryDto) {
    return this.content.file(user, spaceId, undefined, fileId);
  }

  @Get('page/:pageId')
  @ApiOperation({ operationId: 'getPageById', summary: 'A page of the active revision, with its body and sub-pages' })
  @ApiOkResponse({ schema: publicSchema('RevisionPage') })
  page(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Param('pageId') pageId: string, @Query() query: PageQueryDto) {
    return this.content.page(user, spaceId, undefined, { pageId }, query);
  }

  @Get('path/*pagePath')
  @ApiParam({ name: 'pagePath', description: 'Path of the page, e.g. `guide/install` (slashes may be encoded)' })
  @ApiOperation({ operationId: 'getPageByPath', summary: 'A page of the active revision, by its path' })
  @ApiOkResponse({ schema: PAGE_BY_PATH_SCHEMA })
  pageByPath(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Param('pagePath') pagePath: string | string[], @Query() query: PageQueryDto) {
    return this.content.page(user, spaceId, undefined, { path: joinPath(pagePath) }, query);
  }
}
