import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { publicSchema } from '../../common/openapi/public-schema';
import { OrgRole } from '../organizations/organization-member.guard';
import { siteError } from '../sites/site.errors';
import { InstallationsRepository } from './installations.repository';
import { PublishedScriptsService } from './published-scripts.service';

/** `SiteIntegrationScript`: a script the integrations installed on a site inject into its pages. */
export interface SiteIntegrationScriptJson {
  script: string;
  contentSecurityPolicy?: string;
  cookies: boolean;
}

/** The integrations of a site: the scripts they inject into its published pages (members of its organization read). */
@ApiTags('integrations')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'siteId' })
@OrgRole('member')
@Controller('v1/orgs/:organizationId/sites/:siteId')
export class SiteIntegrationsController {
  constructor(
    private readonly scripts: PublishedScriptsService,
    private readonly installations: InstallationsRepository,
  ) {}

  @Get('integration-scripts')
  @ApiOperation({ operationId: 'listSiteIntegrationScripts', summary: 'Scripts the integrations installed on a site inject into its published pages' })
  @ApiOkResponse({ schema: { type: 'array', items: publicSchema('SiteIntegrationScript') } })
  async list(@Param('organizationId') organizationId: string, @Param('siteId') siteId: string): Promise<SiteIntegrationScriptJson[]> {
    if ((await this.installations.siteOrganization(siteId)) !== organizationId) throw siteError('site.not_found', `Site ${siteId} not found`);
    return (await this.scripts.scriptsOf('site', siteId)).map(({ script, contentSecurityPolicy, cookies }) => ({
      script,
      ...(contentSecurityPolicy ? { contentSecurityPolicy } : {}),
      cookies,
    }));
  }
}
