import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import type { User } from '../users/user.entity';
import { presentEvent, presentEventWithTrace } from './event.presenter';
import { EventsService } from './events.service';
import { IntegrationNamePipe } from './integration-name.pipe';

/** The events sent to an integration, for admins of its owner (what `gitbook tail` reads). */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'integrationName' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/integrations/:integrationName/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ operationId: 'listIntegrationEvents', summary: 'Events of an integration, newest first' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationEvent') })
  async list(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string, @Query() query: ListQueryDto) {
    const { integration, page } = await this.events.list(user, name, query);
    return mapPage(page, (event) => presentEvent(integration, event));
  }

  @Get(':eventId')
  @ApiParam({ name: 'eventId' })
  @ApiOperation({ operationId: 'getIntegrationEvent', summary: 'An event with its trace (the script console output)' })
  @ApiOkResponse({ description: '{ event, trace: { logs } }' })
  async get(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string, @Param('eventId') eventId: string) {
    const { integration, event } = await this.events.get(user, name, eventId);
    return presentEventWithTrace(integration, event);
  }
}
