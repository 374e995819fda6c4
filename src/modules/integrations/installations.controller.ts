import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts, ScriptInstallationRoute } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { listSchemaOf, publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { SpaceAccessService } from '../access/space-access.service';
import { SpaceAction } from '../access/route-access.guard';
import { presentSpace, SpaceJson } from '../space-model/space.presenter';
import type { User } from '../users/user.entity';
import {
  ExtendedQueryDto,
  GrantScopesDto,
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
import {
  INSTALLATION_SCOPES_SCHEMA,
  InstallationJson,
  presentInstallation,
  presentTargetInstallation,
  SCOPES_FIELD,
  TargetInstallationJson,
} from './installation.presenter';
import { InstallationsService } from './installations.service';
import { CurrentScript, type ScriptPrincipal } from './script-auth/script-principal';
import type { CallerRoles } from './integration.policy';

/** The public `IntegrationInstallation` with Quire's `x-quire-scopes`. */
const INSTALLATION_SCHEMA = {
  allOf: [publicSchema('IntegrationInstallation'), { type: 'object', properties: { [SCOPES_FIELD]: INSTALLATION_SCOPES_SCHEMA }, required: [SCOPES_FIELD] }],
};

/** Installations of an integration on organizations, and on their spaces and sites. */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'integrationName' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/integrations/:integrationName')
export class InstallationsController {
  constructor(
    private readonly installations: InstallationsService,
    private readonly spaces: SpaceAccessService,
    private readonly config: AppConfig,
  ) {}

  @Get('installations')
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'listIntegrationInstallations', summary: 'Installations of an integration in the caller’s organizations' })
  @ApiOkResponse({ schema: listSchemaOf(INSTALLATION_SCHEMA) })
  async list(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.list(user, name, query, script?.installationId);
    return mapPage(page, (row) => presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script?.installationId }));
  }

  @Post('installations')
  @HttpCode(201)
  @ApiOperation({ operationId: 'installIntegration', summary: 'Install on an organization (its admins)' })
  @ApiCreatedResponse({ schema: INSTALLATION_SCHEMA })
  async install(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Body() dto: InstallIntegrationDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.install(user, name, dto.organization);
    const json = presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script?.installationId });
    res.setHeader('Location', json.urls.location);
    return json;
  }

  @Get('installations/:installationId')
  @ApiParam({ name: 'installationId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'getIntegrationInstallationById', summary: 'An installation' })
  @ApiOkResponse({ schema: INSTALLATION_SCHEMA })
  async get(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.get(user, name, id);
    return presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script?.installationId });
  }

  @Patch('installations/:installationId')
  @ApiParam({ name: 'installationId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'updateIntegrationInstallation', summary: 'Configure an installation (validated against the manifest)' })
  @ApiOkResponse({ schema: INSTALLATION_SCHEMA })
  async update(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Body() dto: UpdateInstallationDto,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.update(user, name, id, dto);
    return presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script?.installationId });
  }

  @Post('installations/:installationId/scopes')
  @HttpCode(200)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({
    operationId: 'grantIntegrationInstallationScopes',
    summary: 'Grant scopes to an installation (admins of its organization; Quire)',
    description:
      'After a republish that asks for more scopes, the installation keeps the scopes it was granted until an admin of its ' +
      'organization grants the new ones here. The installation is granted the listed scopes that the integration asks for now.',
  })
  @ApiOkResponse({ schema: INSTALLATION_SCHEMA })
  async grantScopes(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Body() dto: GrantScopesDto,
  ): Promise<InstallationJson> {
    const { integration, roles, row } = await this.installations.grantScopes(user, name, id, dto.scopes);
    return presentInstallation(integration, row, this.config, { roles, scriptInstallationId: script?.installationId });
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
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'listIntegrationSpaceInstallations', summary: 'Space installations of an integration' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSpaceInstallation') })
  async listSpaces(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    // A script sees its own installation's spaces only.
    const { integration, roles, page } = await this.installations.listOn(user, name, 'space', query, script?.installationId);
    return { ...page, items: await this.presentSpaces(user, { roles, scriptInstallationId: script?.installationId }, integration, page.items, query.extended) };
  }

  @Get('installations/:installationId/spaces')
  @ApiParam({ name: 'installationId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'listIntegrationInstallationSpaces', summary: 'Spaces of an installation' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSpaceInstallation') })
  async listInstallationSpaces(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'space', query, id);
    return { ...page, items: await this.presentSpaces(user, { roles, scriptInstallationId: script?.installationId }, integration, page.items, query.extended) };
  }

  @Post('installations/:installationId/spaces')
  @HttpCode(201)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'installIntegrationOnSpace', summary: 'Install on a space of the installation’s organization' })
  @ApiCreatedResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async installOnSpace(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ExtendedQueryDto,
    @Body() dto: InstallOnSpaceDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.installOn(user, name, id, 'space', dto.space);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script?.installationId }, integration, [row], query.extended))[0];
  }

  @Get('installations/:installationId/spaces/:spaceId')
  @SpaceAction('view')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'spaceId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'getIntegrationSpaceInstallation', summary: 'A space installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async getSpace(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
    @Query() query: ExtendedQueryDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.getOn(user, name, id, 'space', spaceId);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script?.installationId }, integration, [row], query.extended))[0];
  }

  @Patch('installations/:installationId/spaces/:spaceId')
  @SpaceAction('admin')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'spaceId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'updateIntegrationSpaceInstallation', summary: 'Configure a space installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSpaceInstallation') })
  async updateSpace(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
    @Query() query: ExtendedQueryDto,
    @Body() dto: UpdateTargetInstallationDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.updateOn(user, name, id, 'space', spaceId, dto);
    return (await this.presentSpaces(user, { roles, scriptInstallationId: script?.installationId }, integration, [row], query.extended))[0];
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
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('spaceId') spaceId: string,
  ): Promise<void> {
    await this.installations.uninstallFrom(user, name, id, 'space', spaceId);
  }

  // Sites (a site is shown by its ID: the sites module presents sites)

  @Get('sites')
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'listIntegrationSiteInstallations', summary: 'Site installations of an integration' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSiteInstallation') })
  async listSites(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'site', query, script?.installationId);
    return mapPage(page, (row) => presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script?.installationId }));
  }

  @Get('installations/:installationId/sites')
  @ApiParam({ name: 'installationId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'listIntegrationInstallationSites', summary: 'Sites of an installation' })
  @ApiOkResponse({ schema: publicListSchema('IntegrationSiteInstallation') })
  async listInstallationSites(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() query: ListTargetInstallationsQueryDto,
  ) {
    const { integration, roles, page } = await this.installations.listOn(user, name, 'site', query, id);
    return mapPage(page, (row) => presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script?.installationId }));
  }

  @Post('installations/:installationId/sites')
  @HttpCode(201)
  @ApiParam({ name: 'installationId' })
  @ApiOperation({ operationId: 'installIntegrationOnSite', summary: 'Install on a site of the installation’s organization' })
  @ApiCreatedResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async installOnSite(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Query() _query: ExtendedQueryDto,
    @Body() dto: InstallOnSiteDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.installOn(user, name, id, 'site', dto.siteId);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script?.installationId });
  }

  @Get('installations/:installationId/sites/:siteId')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'getIntegrationSiteInstallation', summary: 'A site installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async getSite(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('siteId') siteId: string,
    @Query() _query: ExtendedQueryDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.getOn(user, name, id, 'site', siteId);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script?.installationId });
  }

  @Patch('installations/:installationId/sites/:siteId')
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ScriptInstallationRoute()
  @ApiOperation({ operationId: 'updateIntegrationSiteInstallation', summary: 'Configure a site installation' })
  @ApiOkResponse({ schema: publicSchema('IntegrationSiteInstallation') })
  async updateSite(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') id: string,
    @Param('siteId') siteId: string,
    @Query() _query: ExtendedQueryDto,
    @Body() dto: UpdateTargetInstallationDto,
  ): Promise<TargetInstallationJson> {
    const { integration, roles, row } = await this.installations.updateOn(user, name, id, 'site', siteId, dto);
    return presentTargetInstallation(integration, 'site', row, this.config, { roles, scriptInstallationId: script?.installationId });
  }

  @Delete('installations/:installationId/sites/:siteId')
  @HttpCode(204)
  @ApiParam({ name: 'installationId' })
  @ApiParam({ name: 'siteId' })
  @ApiOperation({ operationId: 'uninstallIntegrationFromSite', summary: 'Uninstall from a site' })
  @ApiNoContentResponse({ description: 'Uninstalled' })
  async uninstallSite(
    @CurrentUser() user: User,
    @CurrentScript() script: ScriptPrincipal | undefined,
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
