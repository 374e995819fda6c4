import { Body, Controller, createParamDecorator, Delete, ExecutionContext, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { SpaceAccessService } from '../access/space-access.service';
import { SpaceAction } from '../access/route-access.guard';
import { presentSpace, SpaceJson } from '../space-model/space.presenter';
import type { User } from '../users/user.entity';
import {
  ExtendedQueryDto,
  InstallIntegrationDto,
  InstallOnSiteDto,
  InstallOnSpaceDto,
  ListInstallationsQueryDto,
  ListTargetInstallationsQueryDto,
  UpdateInstallationDto,
  UpdateTargetInstallationDto,
} from './dto/installation.dto';
import { IntegrationNamePipe } from './integration-name.pipe';
import type { Integration } from './integration.entity';
import type { TargetInstallationRow } from './installation.read-model';
import type { CallerRoles } from './integration.policy';
import { InstallationJson, presentInstallation, presentTargetInstallation, TargetInstallationJson } from './installation.presenter';

/** The installation whose script token authenticated the request, if one did (it reads its own configuration). */
const ScriptInstallation = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<Request>().scriptPrincipal?.installationId,
);
import { InstallationsService } from './installations.service';

/** Installations of an integration on organizations, and on their spaces and sites. */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'integrationName' })
@Controller('v1/integrations/:integrationName')
export class InstallationsController {
  constructor(
    private readonly installations: InstallationsService,
    private readonly spaces: SpaceAccessService,
    private readonly config: AppConfig,
  ) {}

  @Get('installations')
  @ApiOperation({ operationId: 'listIntegrationInstallations', summary: 'Installations of an integration in the caller’s organizations' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationInstallation') })
  async list(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.list(user, name, query);
    return mapPage(page, (row) => presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script }));
  }

  @Post('installations')
  @HttpCode(201)
  @ApiOperation({ operationId: 'installIntegration', summary: 'Install on an organization (its admins)' })
  @ApiCreatedResponse({ schema: publicSchema('IntegrationInstallation') })
  async install(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Body() dto: InstallIntegrationDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.install(user, name, dto.organization);
    const json = presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script });
    res.setHeader('Location', json.urls.location);
    return json;
  }

  @Get('installations/:installationId')
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'getIntegrationInstallationById', summary: 'An installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationInstallation') })
  async get(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.get(user, name, id);
    return presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script });
  }

  @Patch('installations/:installationId')
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'updateIntegrationInstallation', summary: 'Configure an installation (validated against the manifest)' })
  @ApiOkResponse({ schema: publicSchema('IntegrationInstallation') })
  async update(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Body() dto: UpdateInstallationDto,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.update(user, name, id, dto);
    return presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script });
  }

  @Delete('installations/:installationId')
  @HttpCode(204)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'uninstallIntegration', summary: 'Uninstall from an organization (and its spaces and sites)' })
  @ApiNoContentResponse({ description: 'Uninstalled' })
  async uninstall(@CurrentUser() user: User, @Param('integrationName', IntegrationNamePipe) name: string, @Param('installationId') id: string): Promise<void> {
    await this.installations.uninstall(user, name, id);
  }

  // Spaces

  @Get('spaces')
  @ApiOperation({ operationId: 'listIntegrationSpaceInstallations', summary: 'Space installations of an integration' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSpaceInstallation') })
  async listSpaces(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'space', query);
    return { ...page, items: await this.presentSpaces(user, { roles, scriptInstallationId: script }, integration, page.items, query.extended) };
  }

  @Get('installations/:installationId/spaces')
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'listIntegrationInstallationSpaces', summary: 'Spaces of an installation' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSpaceInstallation') })
  async listInstallationSpaces(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'space', query, id);
    return { ...page, items: await this.presentSpaces(user, { roles, scriptInstallationId: script }, integration, page.items, query.extended) };
  }

  @Post('installations/:installationId/spaces')
  @HttpCode(201)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'installIntegrationOnSpace', summary: 'Install on a space of the installation’s organization' })
  @ApiCreatedResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async installOnSpace(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ExtendedQueryDto,
    @Body() dto: InstallOnSpaceDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.installOn(user, name, id, 'space', dto.space);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script }, integration, [row], query.extended))[0];
  }

  @Get('installations/:installationId/spaces/:spaceId')
  @SpaceAction('view')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'spaceId' })
  @ApiOperation({ operationId: 'getIntegrationSpaceInstallation', summary: 'A space installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async getSpace(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
    @Query() query: ExtendedQueryDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.getOn(user, name, id, 'space', spaceId);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script }, integration, [row], query.extended))[0];
  }

  @Patch('installations/:installationId/spaces/:spaceId')
  @SpaceAction('admin')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'spaceId' })
  @ApiOperation({ operationId: 'updateIntegrationSpaceInstallation', summary: 'Configure a space installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async updateSpace(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
    @Query() query: ExtendedQueryDto,
    @Body() dto: UpdateTargetInstallationDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.updateOn(user, name, id, 'space', spaceId, dto);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script }, integration, [row], query.extended))[0];
  }

  @Delete('installations/:installationId/spaces/:spaceId')
  @HttpCode(204)
  @SpaceAction('admin')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'spaceId' })
  @ApiOperation({ operationId: 'uninstallIntegrationFromSpace', summary: 'Uninstall from a space' })
  @ApiNoContentResponse({ description: 'Uninstalled' })
  async uninstallSpace(
    @CurrentUser() user: User,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
  ): Promise<void> {
    await this.installations.uninstallFrom(user, name, id, 'space', spaceId);
  }

  // Sites (a site is shown by its ID: the sites module presents sites)

  @Get('sites')
  @ApiOperation({ operationId: 'listIntegrationSiteInstallations', summary: 'Site installations of an integration' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSiteInstallation') })
  async listSites(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'site', query);
    return mapPage(page, (row) => presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script }));
  }

  @Get('installations/:installationId/sites')
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'listIntegrationInstallationSites', summary: 'Sites of an installation' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSiteInstallation') })
  async listInstallationSites(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'site', query, id);
    return mapPage(page, (row) => presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script }));
  }

  @Post('installations/:installationId/sites')
  @HttpCode(201)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'installIntegrationOnSite', summary: 'Install on a site of the installation’s organization' })
  @ApiCreatedResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async installOnSite(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() _query: ExtendedQueryDto,
    @Body() dto: InstallOnSiteDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.installOn(user, name, id, 'site', dto.siteId);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script });
  }

  @Get('installations/:installationId/sites/:siteId')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ApiOperation({ operationId: 'getIntegrationSiteInstallation', summary: 'A site installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async getSite(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('siteId') siteId: string,
    @Query() _query: ExtendedQueryDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.getOn(user, name, id, 'site', siteId);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script });
  }

  @Patch('installations/:installationId/sites/:siteId')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ApiOperation({ operationId: 'updateIntegrationSiteInstallation', summary: 'Configure a site installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async updateSite(
    @CurrentUser() user: User,
    @ScriptInstallation() script: string | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('siteId') siteId: string,
    @Query() _query: ExtendedQueryDto,
    @Body() dto: UpdateTargetInstallationDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.updateOn(user, name, id, 'site', siteId, dto);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script });
  }

  @Delete('installations/:installationId/sites/:siteId')
  @HttpCode(204)
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ApiOperation({ operationId: 'uninstallIntegrationFromSite', summary: 'Uninstall from a site' })
  @ApiNoContentResponse({ description: 'Uninstalled' })
  async uninstallSite(
    @CurrentUser() user: User,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('siteId') siteId: string,
  ): Promise<void> {
    await this.installations.uninstallFrom(user, name, id, 'site', siteId);
  }

  private async presentSpaces(
    user: User,
    reader: { roles: CallerRoles; scriptInstallationId?: string },
    integration: Integration,
    rows: TargetInstallationRow[],
    extended?: boolean,
  ): Promise<TargetInstallationJson[]> {
    let spaces = new Map<string, SpaceJson>();
    if (extended) {
      const accesses = await Promise.all(rows.map((row) => this.spaces.resolve(user, row.targetId).catch(() => null)));
      spaces = new Map(accesses.flatMap((a) => (a ? [[a.space.id, presentSpace(a.space, a.permissions, this.config)] as [string, SpaceJson]] : [])));
    }
    return rows.map((row) => presentTargetInstallation(integration, 'space', row, this.config, reader, spaces.get(row.targetId)));
  }
}
