import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { User } from '../../users/user.entity';
import { BACKLINKS_SCHEMA, LINKS_SCHEMA } from './link.schemas';
import { LinksQueryDto } from '../dto/links-query.dto';
import { BacklinksJson, LinksJson, presentBacklinks, presentLinks } from './link.presenter';
import { LinksService } from './links.service';
import { SpaceAccess } from '../../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { CONTENT_POLICY } from '../content.policy';

/** Links of the active revision, classified `ok`, `broken` or `in-app`, and backlinks of files. */
@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId')
@SpaceAction(CONTENT_POLICY.read)
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Get('links')
  @ApiOperation({ operationId: 'listSpaceLinks', summary: 'Links in the pages of the space, with stats' })
  @ApiOkResponse({ schema: LINKS_SCHEMA })
  async space(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: LinksQueryDto): Promise<LinksJson> {
    return presentLinks(await this.links.list(user, access, query));
  }

  @Get('content/page/:pageId/links')
  @ApiOperation({ operationId: 'listPageLinks', summary: 'Links in one page, with stats' })
  @ApiOkResponse({ schema: LINKS_SCHEMA })
  async page(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('pageId') pageId: string,
    @Query() query: LinksQueryDto,
  ): Promise<LinksJson> {
    return presentLinks(await this.links.list(user, access, query, pageId));
  }

  @Get('content/files/:fileId/backlinks')
  @ApiOperation({ operationId: 'listFileBacklinks', summary: 'Pages that reference a file' })
  @ApiOkResponse({ schema: BACKLINKS_SCHEMA })
  async backlinks(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('fileId') fileId: string,
    @Query() query: ListQueryDto,
  ): Promise<BacklinksJson> {
    return presentBacklinks(await this.links.backlinks(user, access, fileId, query));
  }
}
