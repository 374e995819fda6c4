import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { CollectionAccess } from '../access/collection-access.service';
import { CollectionAction, CurrentCollectionAccess } from '../access/route-access.guard';
import { User } from '../users/user.entity';
import { presentSpace } from '../space-model/space.presenter';
import { SpacesService } from './spaces.service';

/** The spaces of a collection: a collections route, served here because it lists spaces. */
@ApiTags('collections')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/collections/:collectionId/spaces')
export class CollectionSpacesController {
  constructor(
    private readonly spaces: SpacesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @CollectionAction('view')
  @ApiOperation({ operationId: 'listSpacesInCollectionById', summary: 'List the spaces of a collection, in their kept order' })
  @ApiOkResponse({ schema: publicListSchema('Space') })
  async list(@CurrentUser() user: User, @CurrentCollectionAccess() access: CollectionAccess, @Query() query: ListQueryDto) {
    const page = await this.spaces.listInCollection(user, access, query);
    return mapPage(page, ({ space, permissions }) => presentSpace(space, permissions, this.config));
  }
}
