import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import type { User } from '../users/user.entity';
import { DevModeDto } from './dto/dev-mode.dto';
import { ListIntegrationsQueryDto } from './dto/list-integrations-query.dto';
import { PublishIntegrationDto } from './dto/publish-integration.dto';
import { IntegrationJson, presentIntegration } from './integration.presenter';
import { imageType, IntegrationsService } from './integrations.service';
import { IntegrationNamePipe } from './integration-name.pipe';

@ApiTags('integrations')
@ApiBearerAuth()
@Controller('v1/integrations')
export class IntegrationsController {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listIntegrations', summary: 'List the integrations the caller can see, with the public filters' })
  @ApiOkResponse({ schema: publicListSchema('Integration') })
  async list(@CurrentUser() user: User, @Query() query: ListIntegrationsQueryDto) {
    const { value, roles } = await this.integrations.list(user, query);
    return mapPage(value, ({ integration, owner }) => presentIntegration(integration, owner, roles, this.config));
  }

  @Get(':integrationName')
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'getIntegrationByName', summary: 'Get an integration' })
  @ApiOkResponse({ schema: publicSchema('Integration') })
  async get(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string): Promise<IntegrationJson> {
    const { value, roles } = await this.integrations.get(user, name);
    return presentIntegration(value.integration, value.owner, roles, this.config);
  }

  @Post(':integrationName')
  @HttpCode(200)
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'publishIntegration', summary: 'Publish an integration, or its next version (admins of the owning organization)' })
  @ApiOkResponse({ schema: publicSchema('Integration') })
  async publish(
    @CurrentUser() user: User,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Body() dto: PublishIntegrationDto,
  ): Promise<IntegrationJson> {
    const { value, roles } = await this.integrations.publish(user, name, dto);
    return presentIntegration(value.integration, value.owner, roles, this.config);
  }

  @Delete(':integrationName')
  @HttpCode(204)
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'unpublishIntegration', summary: 'Unpublish an integration: it is uninstalled everywhere' })
  @ApiNoContentResponse({ description: 'Unpublished' })
  async unpublish(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string): Promise<void> {
    await this.integrations.unpublish(user, name);
  }

  @Put(':integrationName/dev')
  @HttpCode(204)
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'setIntegrationDevelopmentMode', summary: 'Dispatch events and renders to a tunnel (expires)' })
  @ApiNoContentResponse({ description: 'Development mode enabled' })
  async setDev(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string, @Body() dto: DevModeDto): Promise<void> {
    await this.integrations.setDevMode(user, name, dto.tunnelUrl, dto.all ?? false);
  }

  @Delete(':integrationName/dev')
  @HttpCode(205)
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'disableIntegrationDevelopmentMode', summary: 'Stop development mode' })
  @ApiResponse({ status: 205, description: 'Development mode disabled' })
  async clearDev(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string): Promise<void> {
    await this.integrations.clearDevMode(user, name);
  }

  /** `urls.icon`: public, like the marketplace's images, so an <img> can show it. */
  @Public()
  @Get(':integrationName/icon')
  @ApiParam({ name: 'integrationName' })
  @ApiOperation({ operationId: 'getIntegrationIcon', summary: "The integration's icon (public)" })
  async icon(@Param('integrationName', IntegrationNamePipe) name: string, @Res() res: Response): Promise<void> {
    sendImage(res, await this.integrations.icon(name));
  }

  @Public()
  @Get(':integrationName/preview/:index')
  @ApiParam({ name: 'integrationName' })
  @ApiParam({ name: 'index' })
  @ApiOperation({ operationId: 'getIntegrationPreviewImage', summary: 'A preview image of the integration (public)' })
  async preview(@Param('integrationName', IntegrationNamePipe) name: string, @Param('index') index: string, @Res() res: Response): Promise<void> {
    sendImage(res, await this.integrations.previewImage(name, /^\d{1,2}$/.test(index) ? Number(index) : -1));
  }
}

function sendImage(res: Response, bytes: Buffer): void {
  res.setHeader('Content-Type', imageType(bytes) ?? 'application/octet-stream');
  // An SVG can carry script: never let it run in our origin.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.status(200).end(bytes);
}
