import { Body, Controller, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { User } from '../users/user.entity';
import { CreateOrganizationDto } from './dto/create-organization.dto';
import { UpdateOrganizationDto } from './dto/update-organization.dto';
import { Membership } from './membership.entity';
import { CurrentMembership, OrgRole } from './organization-member.guard';
import { organizationPermissions } from './organization.policy';
import { OrganizationJson, presentOrganization } from './organization.presenter';
import { OrganizationsService } from './organizations.service';

@ApiTags('organizations')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs')
export class OrganizationsController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listOrganizationsForAuthenticatedUser', summary: 'List the organizations of the caller' })
  @ApiOkResponse({ schema: publicListSchema('Organization') })
  async list(@CurrentUser() user: User, @Query() query: ListQueryDto) {
    const page = await this.organizations.listForUser(user, query);
    return mapPage(page, ({ organization, membership, ownsTeam }) =>
      presentOrganization(organization, organizationPermissions({ membership, ownsTeam }), this.config),
    );
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'createOrganization', summary: 'Create an organization; the caller becomes its admin' })
  @ApiCreatedResponse({ schema: publicSchema('Organization') })
  async create(@CurrentUser() user: User, @Body() dto: CreateOrganizationDto, @Res({ passthrough: true }) res: Response): Promise<OrganizationJson> {
    const { organization, membership } = await this.organizations.create(user, dto);
    const json = presentOrganization(organization, organizationPermissions({ membership }), this.config);
    res.location(json.urls.location);
    return json;
  }

  @Get(':organizationId')
  @ApiParam({ name: 'organizationId' })
  @OrgRole('guest')
  @ApiOperation({ operationId: 'getOrganizationById', summary: 'Get an organization by its ID' })
  @ApiOkResponse({ schema: publicSchema('Organization') })
  async get(@CurrentMembership() membership: Membership): Promise<OrganizationJson> {
    const organization = await this.organizations.get(membership);
    return presentOrganization(organization, organizationPermissions({ membership, ownsTeam: await this.organizations.ownsTeam(membership) }), this.config);
  }

  @Patch(':organizationId')
  @ApiParam({ name: 'organizationId' })
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateOrganizationById', summary: 'Update an organization (admins only)' })
  @ApiOkResponse({ schema: publicSchema('Organization') })
  async update(@CurrentMembership() membership: Membership, @Body() dto: UpdateOrganizationDto): Promise<OrganizationJson> {
    const organization = await this.organizations.update(membership, dto);
    return presentOrganization(organization, organizationPermissions({ membership, ownsTeam: await this.organizations.ownsTeam(membership) }), this.config);
  }
}
