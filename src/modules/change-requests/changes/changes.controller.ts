import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import type { Request } from 'express';
import { NotForScripts, ScriptScope } from '../../../common/access/script-access';
import { SiteTokenContent } from '../../../common/access/site-access';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { publicSchema } from '../../../common/openapi/public-schema';
import { Optional } from '../../../common/validation/presence';
import { AppConfig } from '../../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { SpaceAccess } from '../../access/space-access.service';
import { CONTENT_POLICY } from '../../content/content.policy';
import { RevisionQueryDto } from '../../content/dto/content-query.dto';
import { isSiteTokenRead } from '../../content/reader-files/site-token-read';
import { presentSemanticChanges, type SemanticChangesJson } from '../../content/semantic/semantic-changes.presenter';
import { User } from '../../users/user.entity';
import { CHANGE_REQUEST_POLICY } from '../change-request.policy';
import { ChangeRequestJson, presentChangeRequest } from '../change-request.presenter';
import { ChangeRequestChangesService, type ChangesOutcome } from './changes.service';

export const MAX_CHANGES_LIMIT = 1000;

export class ChangesQueryDto {
  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: MAX_CHANGES_LIMIT, description: 'Most changes returned; `more` counts the others' })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_CHANGES_LIMIT)
  limit: number = 10;
}

export class RevisionChangesQueryDto extends RevisionQueryDto {
  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: MAX_CHANGES_LIMIT, description: 'Most changes returned; `more` counts the others' })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_CHANGES_LIMIT)
  limit: number = 10;
}

type ChangesJson = SemanticChangesJson & { mergedFrom?: ChangeRequestJson };

function present(outcome: ChangesOutcome, access: SpaceAccess, config: AppConfig): ChangesJson {
  const json: ChangesJson = presentSemanticChanges(outcome.view, { config, spaceId: access.space.id, fileUrl: outcome.fileUrl });
  if (outcome.mergedFrom) json.mergedFrom = presentChangeRequest(outcome.mergedFrom, config);
  return json;
}

/** What a change request changes (its head against its base). GitBook's renderer reads it for the preview, with a site token. */
@ApiTags('change-requests')
@ApiBearerAuth()
@NotForScripts()
@Controller('v1/spaces/:spaceId/change-requests/:changeRequestId/changes')
@SpaceAction(CHANGE_REQUEST_POLICY.read)
export class ChangeRequestChangesController {
  constructor(
    private readonly changes: ChangeRequestChangesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiParam({ name: 'changeRequestId', description: 'The change request ID or its number in the space' })
  @SiteTokenContent()
  @ApiOperation({
    operationId: 'getChangeRequestChanges',
    summary: 'Pages and files created, edited, moved and deleted by the change request against its base (default limit 10)',
  })
  @ApiOkResponse({ schema: publicSchema('RevisionSemanticChanges') })
  async get(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: ChangesQueryDto,
    @Req() req: Request,
  ): Promise<ChangesJson> {
    return present(await this.changes.ofChangeRequest(access, id, query.limit, isSiteTokenRead(req)), access, this.config);
  }
}

/** What a revision changes against its first parent. */
@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/revisions/:revisionId/changes')
@SpaceAction(CONTENT_POLICY.read)
export class RevisionChangesController {
  constructor(
    private readonly changes: ChangeRequestChangesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ScriptScope('space:content:read', 'space:content:write')
  @SiteTokenContent()
  @ApiOperation({
    operationId: 'getRevisionSemanticChanges',
    summary: 'Pages and files created, edited, moved and deleted by a revision against its first parent; a merge names its change request (default limit 10)',
  })
  @ApiOkResponse({ schema: publicSchema('RevisionSemanticChanges') })
  async get(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('revisionId') revisionId: string,
    @Query() query: RevisionChangesQueryDto,
    @Req() req: Request,
  ): Promise<ChangesJson> {
    return present(await this.changes.ofRevision(user, access, revisionId, query.limit, isSiteTokenRead(req)), access, this.config);
  }
}
