import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { User } from '../../users/user.entity';
import { BACKLINKS_SCHEMA, LINKS_SCHEMA } from './link.schemas';
import { LinksQueryDto } from '../dto/links-query.dto';
import { LinksService } from './links.service';

/** Links of the active revision, classified `ok`, `broken` or `in-app`, and backlinks of files. */
@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Get('links')
  @ApiOperation({ operationId: 'listSpaceLinks', summary: 'Links in the pages of the space, with stats' })
  @ApiOkResponse({ schema: LINKS_SCHEMA })
  space(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Query() query: LinksQueryDto) {
    return this.links.list(user, spaceId, query);
  }

  @Get('content/page/:pageId/links')
  @ApiOperation({ operationId: 'listPageLinks', summary: 'Links in one page, with stats' })
  @ApiOkResponse({ schema: LINKS_SCHEMA })
  page(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Param('pageId') pageId: string, @Query() query: LinksQueryDto) {
    return this.links.list(user, spaceId, query, pageId);
  }

  @Get('content/files/:fileId/backlinks')
  @ApiOperation({ operationId: 'listFileBacklinks', summary: 'Pages that reference a file' })
  @ApiOkResponse({ schema: BACKLINKS_SCHEMA })
  backlinks(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Param('fileId') fileId: string, @Query() query: ListQueryDto) {
    return this.links.backlinks(user, spaceId, fileId, query);
  }
}
