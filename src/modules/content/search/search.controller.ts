import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { publicListSchema } from '../../../common/openapi/public-schema';
import { SearchQueryDto } from '../dto/search-query.dto';
import { presentSearchResults, SearchResultsJson } from './search.presenter';
import { SearchService } from './search.service';
import { SpaceAccess } from '../../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { CONTENT_POLICY } from '../content.policy';
import { ReadFromReplica } from '../../../database/read-from-replica';

@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/search')
@SpaceAction(CONTENT_POLICY.read)
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @ReadFromReplica()
  @ApiOperation({ operationId: 'searchSpaceContent', summary: 'Full-text search of the active revision: pages best first, with matching sections' })
  @ApiOkResponse({ schema: publicListSchema('SearchPageResult') })
  async find(@CurrentSpaceAccess() access: SpaceAccess, @Query() query: SearchQueryDto): Promise<SearchResultsJson> {
    return presentSearchResults(await this.search.search(access, query));
  }
}
