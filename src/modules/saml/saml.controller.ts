import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { teamPermissions } from '../teams/team.policy';
import { presentTeam } from '../teams/team.presenter';
import { CreateSamlProviderDto, UpdateSamlProviderDto } from './dto/saml-provider.dto';
import { presentSamlProvider, presentSsoLogin, SamlProviderJson, SsoLoginJson } from './saml-provider.presenter';
import { SamlProviderRow } from './saml-provider.read-model';
import { SamlService } from './saml.service';

@ApiTags('sso')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('admin')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId')
export class SamlController {
  constructor(
    private readonly saml: SamlService,
    private readonly config: AppConfig,
  ) {}

  @Get('saml')
  @ApiOperation({ operationId: 'listSAMLProvidersInOrganizationById', summary: 'List the SAML providers (admins only)' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationSAMLProvider') })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListQueryDto) {
    return mapPage(await this.saml.list(caller, query), (row) => this.present(caller, row));
  }

  @Post('saml')
  @HttpCode(201)
  @ApiOperation({ operationId: 'createOrganizationSAMLProvider', summary: 'Add a SAML provider (admins only)' })
  @ApiCreatedResponse({ schema: publicSchema('OrganizationSAMLProvider') })
  async create(
    @CurrentMembership() caller: Membership,
    @Body() dto: CreateSamlProviderDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SamlProviderJson> {
    const json = this.present(caller, await this.saml.create(caller, dto));
    res.location(json.urls.location);
    return json;
  }

  @Get('saml/:samlProviderId')
  @ApiOperation({ operationId: 'getOrganizationSAMLProviderById', summary: 'Get a SAML provider (admins only)' })
  @ApiOkResponse({ schema: publicSchema('OrganizationSAMLProvider') })
  async get(@CurrentMembership() caller: Membership, @Param('samlProviderId') id: string): Promise<SamlProviderJson> {
    return this.present(caller, await this.saml.get(caller, id));
  }

  @Patch('saml/:samlProviderId')
  @ApiOperation({ operationId: 'updateOrganizationSAMLProvider', summary: 'Update a SAML provider (admins only)' })
  @ApiOkResponse({ schema: publicSchema('OrganizationSAMLProvider') })
  async update(@CurrentMembership() caller: Membership, @Param('samlProviderId') id: string, @Body() dto: UpdateSamlProviderDto): Promise<SamlProviderJson> {
    return this.present(caller, await this.saml.update(caller, id, dto));
  }

  @Delete('saml/:samlProviderId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteOrganizationSAMLProvider', summary: 'Delete a SAML provider (admins only)' })
  @ApiNoContentResponse({ description: 'The provider was deleted' })
  async delete(@CurrentMembership() caller: Membership, @Param('samlProviderId') id: string): Promise<void> {
    await this.saml.delete(caller, id);
  }

  @Get('sso')
  @OrgRole('member')
  @ApiOperation({ operationId: 'listSSOProviderLoginsInOrganization', summary: 'List how members can sign in with SSO' })
  @ApiOkResponse({
    schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: publicSchema('OrganizationSSOProviderLogin') } } },
  })
  async ssoLogins(@CurrentMembership() caller: Membership): Promise<{ items: SsoLoginJson[] }> {
    return { items: (await this.saml.ssoLogins(caller)).map((provider) => presentSsoLogin(provider, this.config)) };
  }

  private present(caller: Membership, { provider, defaultTeam }: SamlProviderRow): SamlProviderJson {
    const team = defaultTeam && presentTeam(defaultTeam, teamPermissions({ membership: caller, teamRole: defaultTeam.callerRole }));
    return presentSamlProvider(provider, team, this.config);
  }
}
