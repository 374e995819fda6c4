import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { listSchemaOf, publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { UsersService } from '../users/users.service';
import { ListMemberTeamsQueryDto } from './dto/list-teams-query.dto';
import { SetTeamMemberDto, UpdateTeamMembersDto } from './dto/update-team-members.dto';
import { TeamMembersService } from './team-members.service';
import { teamMemberPermissions, teamPermissions } from './team.policy';
import { presentMemberTeam, presentTeamMembership } from './team.presenter';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('member')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId')
export class TeamMembersController {
  constructor(
    private readonly teams: TeamsService,
    private readonly teamMembers: TeamMembersService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  @Get('teams/:teamId/members')
  @ApiOperation({ operationId: 'listTeamMembersInOrganizationById', summary: 'List the members of a team' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationTeamMember') })
  async list(@CurrentMembership() caller: Membership, @Param('teamId') teamId: string, @Query() query: ListQueryDto) {
    const { team, page } = await this.teamMembers.list(caller, teamId, query);
    const permissions = teamMemberPermissions({ membership: caller, teamRole: team.callerRole });
    const emails = await this.users.emailVisibility(
      caller.userId,
      page.items.map((row) => row.user.id),
    );
    return mapPage(page, (row) => presentTeamMembership(row, row.teamRole, permissions, this.config, emails));
  }

  @Put('teams/:teamId/members')
  @HttpCode(204)
  @ApiOperation({ operationId: 'updateMembersInOrganizationTeam', summary: 'Add, re-role and remove team members at once' })
  @ApiNoContentResponse({ description: 'The team members were updated' })
  async update(@CurrentMembership() caller: Membership, @Param('teamId') teamId: string, @Body() dto: UpdateTeamMembersDto): Promise<void> {
    await this.teamMembers.update(caller, teamId, dto);
  }

  @Put('teams/:teamId/members/:userId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'addMemberToOrganizationTeamById', summary: 'Add a member to a team, or change their role in it' })
  @ApiNoContentResponse({ description: 'The member is in the team with the role' })
  async set(
    @CurrentMembership() caller: Membership,
    @Param('teamId') teamId: string,
    @Param('userId') userId: string,
    @Body() dto: SetTeamMemberDto,
  ): Promise<void> {
    await this.teamMembers.set(caller, teamId, userId, dto.role);
  }

  @Delete('teams/:teamId/members/:userId')
  @ApiOperation({ operationId: 'deleteMemberFromOrganizationTeamById', summary: 'Remove a member from a team' })
  @ApiResponse({ status: 205, description: 'The member was removed from the team' })
  @ApiNoContentResponse({ description: 'The member was not in the team' })
  async remove(
    @CurrentMembership() caller: Membership,
    @Param('teamId') teamId: string,
    @Param('userId') userId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    res.status((await this.teamMembers.remove(caller, teamId, userId)) ? 205 : 204);
  }

  @Get('members/:userId/teams')
  @ApiOperation({ operationId: 'listTeamsForOrganizationMember', summary: 'List the teams of a member, with their role in each' })
  @ApiOkResponse({
    schema: listSchemaOf({
      type: 'object',
      required: ['team', 'member'],
      properties: { team: publicSchema('OrganizationTeam'), member: publicSchema('TeamMember') },
    }),
  })
  async listForMember(@CurrentMembership() caller: Membership, @Param('userId') userId: string, @Query() query: ListMemberTeamsQueryDto) {
    const page = await this.teams.listForMember(caller, userId, query);
    return mapPage(page, (row) => presentMemberTeam(row, row.memberRole, teamPermissions({ membership: caller, teamRole: row.callerRole })));
  }
}
