import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { CreateTeamDto, UpdateTeamDto } from './dto/create-team.dto';
import { ListTeamsQueryDto } from './dto/list-teams-query.dto';
import { teamPermissions } from './team.policy';
import { presentTeam, TeamJson } from './team.presenter';
import type { TeamRow } from './team.read-model';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @ApiOperation({ operationId: 'listTeamsInOrganizationById', summary: 'List the teams of an organization' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationTeam') })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListTeamsQueryDto) {
    return mapPage(await this.teams.list(caller, query), (row) => present(caller, row));
  }

  @Put()
  @HttpCode(201)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'createOrganizationTeam', summary: 'Create a team (admins only)' })
  @ApiCreatedResponse({ schema: publicSchema('OrganizationTeam') })
  async create(@CurrentMembership() caller: Membership, @Body() dto: CreateTeamDto): Promise<TeamJson> {
    return present(caller, await this.teams.create(caller, dto));
  }

  @Get(':teamId')
  @ApiOperation({ operationId: 'getTeamInOrganizationById', summary: 'Get a team' })
  @ApiOkResponse({ schema: publicSchema('OrganizationTeam') })
  async get(@CurrentMembership() caller: Membership, @Param('teamId') teamId: string): Promise<TeamJson> {
    return present(caller, await this.teams.get(caller, teamId));
  }

  @Patch(':teamId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateTeamInOrganizationById', summary: 'Rename a team (admins only)' })
  @ApiOkResponse({ schema: publicSchema('OrganizationTeam') })
  async update(@CurrentMembership() caller: Membership, @Param('teamId') teamId: string, @Body() dto: UpdateTeamDto): Promise<TeamJson> {
    return present(caller, await this.teams.rename(caller, teamId, dto.title));
  }

  @Delete(':teamId')
  @HttpCode(204)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'removeTeamFromOrganizationById', summary: 'Delete a team and its memberships (admins only)' })
  @ApiNoContentResponse({ description: 'The team was deleted' })
  async delete(@CurrentMembership() caller: Membership, @Param('teamId') teamId: string): Promise<void> {
    await this.teams.delete(caller, teamId);
  }
}

function present(caller: Membership, row: TeamRow): TeamJson {
  return presentTeam(row, teamPermissions({ membership: caller, teamRole: row.callerRole }));
}
