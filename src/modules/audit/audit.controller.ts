import { Controller, Get, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Readable } from 'node:stream';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { AppConfig } from '../../config/app-config';
import { OrgRole } from '../organizations/organization-member.guard';
import { AuditService } from './audit.service';
import { presentAuditEvent, presentAuditEventAction, presentAuditEventDetails, type AuditEventDetailsJson, type AuditEventJson } from './audit.presenter';
import { ListAuditEventsDto } from './dto/list-audit-events.dto';

/**
 * An organization's audit log. The public description gives these routes to user tokens only, and
 * the issue to the organization's admins: scripts and site tokens are refused, members get 403.
 */
@ApiTags('audit')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('admin')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly config: AppConfig,
  ) {}

  @Get('audit-events')
  @ApiOperation({
    operationId: 'listOrganizationAuditEvents',
    summary: 'List audit events of an organization (newest first); `format=ndjson` streams them all for export',
  })
  @ApiProduces('application/json', 'application/x-ndjson')
  @ApiOkResponse({ schema: publicListSchema('AuditEvent') })
  async list(
    @Param('organizationId') organizationId: string,
    @Query() query: ListAuditEventsDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ items: AuditEventJson[]; next?: { page: string } } | StreamableFile> {
    if (query.format === 'ndjson') {
      const config = this.config;
      const rows = this.audit.export(organizationId, query);
      const lines = Readable.from(
        (async function* () {
          for await (const row of rows) yield `${JSON.stringify(presentAuditEventDetails(config, row))}\n`;
        })(),
      );
      response.setHeader('Cache-Control', 'no-store');
      return new StreamableFile(lines, { type: 'application/x-ndjson' });
    }
    const page = await this.audit.list(organizationId, query);
    return { items: page.items.map((row) => presentAuditEvent(this.config, row)), ...(page.next && { next: page.next }) };
  }

  @Get('audit-events/:auditEventId')
  @ApiParam({ name: 'auditEventId' })
  @ApiOperation({ operationId: 'getOrganizationAuditEvent', summary: 'Get one audit event with its details' })
  @ApiOkResponse({ schema: publicSchema('AuditEventDetails') })
  async get(@Param('organizationId') organizationId: string, @Param('auditEventId') id: string): Promise<AuditEventDetailsJson> {
    return presentAuditEventDetails(this.config, await this.audit.get(organizationId, id));
  }

  @Get('audit-event-actions')
  @ApiOperation({ operationId: 'listOrganizationAuditEventActions', summary: 'List the actions audit events may carry, with their labels' })
  @ApiOkResponse({ schema: { type: 'object', properties: { items: { type: 'array', items: publicSchema('AuditEventAction') } }, required: ['items'] } })
  actions(): { items: ReturnType<typeof presentAuditEventAction>[] } {
    return { items: this.audit.actions().map(presentAuditEventAction) };
  }
}
