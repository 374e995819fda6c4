import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { publicListSchema } from '../../../common/openapi/public-schema';
import { User } from '../../users/user.entity';
import { SearchQueryDto } from '../dto/search-query.dto';
import { SearchService } from './search.service';

@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @ApiOperation({ operationId: 'searchSpaceContent', summary: 'Full-text search of the active revision: pages best first, with matching sections' })
  @ApiOkResponse({ schema: publicListSchema('SearchPageResult') })
  find(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Query() query: SearchQueryDto) {
    return this.search.search(user, spaceId, query);
  }
}
