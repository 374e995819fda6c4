import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicSchema } from '../../common/openapi/public-schema';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import type { Membership } from '../organizations/membership.entity';
import { UpdatePublishingAuthDto } from './dto/publishing-auth.dto';
import { presentPublishingAuth, SitePublishingAuthJson } from './publishing-auth.presenter';
import { PublishingAuthService } from './publishing-auth.service';

/** A site's visitor authentication settings and key (the public `SitePublishingAuth`): admins only. */
@ApiTags('site-publishing-auth')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiParam({ name: 'siteId' })
@OrgRole('admin')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/sites/:siteId/publishing/auth')
export class PublishingAuthController {
  constructor(private readonly auth: PublishingAuthService) {}

  @Get()
  @ApiOperation({ operationId: 'getSitePublishingAuthById', summary: "The site's visitor authentication (its JWT key, fallback and logout URLs)" })
  @ApiOkResponse({ schema: publicSchema('SitePublishingAuth') })
  async get(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<SitePublishingAuthJson> {
    return presentPublishingAuth(await this.auth.get(caller, siteId));
  }

  @Patch()
  @ApiOperation({ operationId: 'updateSitePublishingAuthById', summary: "Change the site's visitor authentication backend, fallback or logout URL" })
  @ApiBody({ schema: publicSchema('SitePublishingAuthUpdate') })
  @ApiOkResponse({ schema: publicSchema('SitePublishingAuth') })
  async update(
    @CurrentMembership() caller: Membership,
    @Param('siteId') siteId: string,
    @Body() dto: UpdatePublishingAuthDto,
  ): Promise<SitePublishingAuthJson> {
    return presentPublishingAuth(await this.auth.update(caller, siteId, dto));
  }

  @Post('regenerate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'regenerateSitePublishingAuthById', summary: 'A new visitor JWT key (JWTs signed with the old one stop working at once)' })
  @ApiOkResponse({ schema: publicSchema('SitePublishingAuth') })
  async regenerate(@CurrentMembership() caller: Membership, @Param('siteId') siteId: string): Promise<SitePublishingAuthJson> {
    return presentPublishingAuth(await this.auth.regenerate(caller, siteId));
  }
}
