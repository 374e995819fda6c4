import { Body, Controller, Get, HttpCode, HttpException, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenOwnSite } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { AggregateEventsDto } from './dto/aggregate-events.dto';
import { TrackEventsBody, TrackEventsDto, TrackEventsPipe } from './dto/track-events.dto';
import { AggregateResultJson, presentAggregate, presentVisitorSegment } from './insights.presenter';
import { INGEST_RETRY_AFTER_SECONDS, InsightsIngestGate } from './insights-ingest.gate';
import { InsightsService } from './insights.service';
import { ReadFromReplica } from '../../database/read-from-replica';

/**
 * Site insights (section 4.19). The public description puts every route behind a user's token
 * (tracking has no security of its own, so the document's default applies): any member of the
 * site's organization, `read` included, may track, aggregate and list segments.
 */
@ApiTags('site-insights')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'siteId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId/insights')
export class InsightsController {
  constructor(
    private readonly insights: InsightsService,
    private readonly gate: InsightsIngestGate,
  ) {}

  @Post('events')
  @HttpCode(204)
  @SiteTokenOwnSite()
  @ApiOperation({ operationId: 'trackEventsInSiteById', summary: 'Track site events (at most 1000 per request)' })
  @ApiBody({ type: TrackEventsDto, required: true })
  @ApiNoContentResponse({ description: 'Events have been tracked (answered once they are committed).' })
  @ApiTooManyRequestsResponse({ description: 'Ingestion is behind: nothing was stored; retry after the Retry-After seconds' })
  async track(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body(TrackEventsPipe) body: TrackEventsBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    let ticket: number;
    try {
      ticket = this.gate.acquire();
    } catch (error) {
      if (error instanceof HttpException) response.setHeader('Retry-After', String(INGEST_RETRY_AFTER_SECONDS));
      throw error;
    }
    try {
      await this.insights.track(caller, siteId, body);
    } finally {
      this.gate.release(ticket);
    }
  }

  @Post('events/aggregate')
  @HttpCode(200)
  @ReadFromReplica()
  @ApiOperation({ operationId: 'aggregateSiteEvents', summary: "Query a site's analytics events" })
  @ApiOkResponse({ schema: publicSchema('SiteInsightsQueryEventsAggregationResult') })
  async aggregate(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Body() dto: AggregateEventsDto): Promise<AggregateResultJson> {
    return presentAggregate(await this.insights.aggregate(caller, siteId, dto));
  }

  @Get('visitor-segments')
  @ReadFromReplica()
  @ApiOperation({ operationId: 'listSiteVisitorSegments', summary: 'List a site visitor segments' })
  @ApiOkResponse({ schema: publicListSchema('SiteInsightsVisitorSegment') })
  async visitorSegments(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string, @Query() query: ListQueryDto) {
    return mapPage(await this.insights.visitorSegments(caller, siteId, query), presentVisitorSegment);
  }
}
