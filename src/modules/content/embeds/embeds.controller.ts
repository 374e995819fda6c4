import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../../common/access/site-access';
import { publicSchema } from '../../../common/openapi/public-schema';
import { SpaceAction } from '../../access/route-access.guard';
import { CONTENT_POLICY } from '../content.policy';
import { EmbedQueryDto } from './embed-query.dto';
import { LinkEmbedJson } from './embed-html';
import { EmbedsService } from './embeds.service';

@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/embed')
@SpaceAction(CONTENT_POLICY.read)
export class EmbedsController {
  constructor(private readonly embeds: EmbedsService) {}

  @Get()
  @SiteTokenContent()
  @ApiOperation({ operationId: 'getEmbedByUrlInSpace', summary: 'Title, site, icon and type of a URL shown in a page of the space' })
  @ApiOkResponse({ schema: publicSchema('Embed') })
  embed(@Query() query: EmbedQueryDto): Promise<LinkEmbedJson> {
    return this.embeds.embed(query.url);
  }
}
