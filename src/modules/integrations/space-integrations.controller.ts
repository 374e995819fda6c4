import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { Optional } from '../../common/validation/presence';
import { AppConfig } from '../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import type { SpaceAccess } from '../access/space-access.service';
import type { User } from '../users/user.entity';
import { presentIntegration } from './integration.presenter';
import { SpaceIntegrationsService } from './space-integrations.service';

export class SpaceIntegrationsQueryDto {
  @ApiPropertyOptional({ description: 'Filter by name' })
  @Optional()
  @IsString()
  @MaxLength(100)
  search?: string;
}

/** The integrations of a space (section 4.2): installed on it, their blocks, their scripts. */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'spaceId' })
@SpaceAction('view')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId')
export class SpaceIntegrationsController {
  constructor(
    private readonly spaceIntegrations: SpaceIntegrationsService,
    private readonly config: AppConfig,
  ) {}

  @Get('integrations')
  @ApiOperation({ operationId: 'listSpaceIntegrations', summary: 'Integrations installed on the space' })
  @ApiOkResponse({ schema: publicListSchema('Integration') })
  async list(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: SpaceIntegrationsQueryDto) {
    const { value, roles } = await this.spaceIntegrations.installed(user, access, query.search);
    return mapPage(value, ({ integration, owner }) => presentIntegration(integration, owner, roles, this.config));
  }

  @Get('integration-blocks')
  @ApiOperation({ operationId: 'listSpaceIntegrationsBlocks', summary: 'Blocks of the integrations installed on the space' })
  @ApiOkResponse({ description: 'Array of { name, blocks }' })
  async blocks(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess) {
    return this.spaceIntegrations.blocks(user, access);
  }

  @Get('integration-scripts')
  @ApiOperation({ operationId: 'listSpaceIntegrationScripts', summary: 'Scripts the integrations installed on the space inject' })
  @ApiOkResponse({ description: 'Array of { script, contentSecurityPolicy, cookies }' })
  async scripts(@CurrentSpaceAccess() access: SpaceAccess) {
    return (await this.spaceIntegrations.scripts(access)).map(({ script, contentSecurityPolicy, cookies }) => ({
      script,
      ...(contentSecurityPolicy ? { contentSecurityPolicy } : {}),
      cookies,
    }));
  }
}
