import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { AppConfig } from '../../config/app-config';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { InviteDto, UpdateGrantDto } from './dto/invite.dto';
import { presentTeamGrant, presentUserGrant } from './grant.presenter';
import { TEAM_GRANTS_SCHEMA, USER_GRANTS_SCHEMA } from './grant-schemas';
import { GrantsService } from './grants.service';
import type { GrantTarget } from './grant.read-model';
import { SpaceAccess } from './space-access.service';
import { SpaceAction, CurrentSpaceAccess } from './route-access.guard';

/** Explicit grants on a space; every route needs `admin` on the space. */
@ApiTags('spaces')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/permissions')
@SpaceAction('admin')
export class SpacePermissionsController {
  constructor(
    private readonly grants: GrantsService,
    private readonly config: AppConfig,
    private readonly users: UsersService,
  ) {}

  @Post()
  @HttpCode(204)
  @ApiOperation({ operationId: 'inviteToSpace', summary: 'Grant a role on the space to users and teams of its organization' })
  @ApiNoContentResponse()
  async invite(@CurrentSpaceAccess() access: SpaceAccess, @Body() dto: InviteDto): Promise<void> {
    await this.grants.invite(administered(access).target, dto);
  }

  @Get('users')
  @ApiOperation({ operationId: 'listUserPermissionsInSpace', summary: 'List the users with an explicit role on the space' })
  @ApiOkResponse({ schema: USER_GRANTS_SCHEMA })
  async listUsers(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: ListQueryDto) {
    const page = await this.grants.listUsers(administered(access).target, query);
    const emails = await this.users.emailVisibility(
      user.id,
      page.items.map((grant) => grant.user.id),
    );
    return mapPage(page, (grant) => presentUserGrant(grant, this.config, emails));
  }

  @Get('teams')
  @ApiOperation({ operationId: 'listTeamPermissionsInSpace', summary: 'List the teams with an explicit role on the space' })
  @ApiOkResponse({ schema: TEAM_GRANTS_SCHEMA })
  async listTeams(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: ListQueryDto) {
    const { target, organizationRole } = administered(access);
    const page = await this.grants.listTeams(target, user.id, query);
    return mapPage(page, (grant) => presentTeamGrant(grant, organizationRole));
  }

  @Patch('users/:userId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'updateUserPermissionInSpace', summary: "Change a user's role on the space" })
  @ApiNoContentResponse()
  async updateUser(@CurrentSpaceAccess() access: SpaceAccess, @Param('userId') userId: string, @Body() dto: UpdateGrantDto): Promise<void> {
    await this.grants.updateRole(administered(access).target, { userId }, dto.role);
  }

  @Delete('users/:userId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'removeUserFromSpace', summary: "Remove a user's explicit role on the space" })
  @ApiNoContentResponse()
  async removeUser(@CurrentSpaceAccess() access: SpaceAccess, @Param('userId') userId: string): Promise<void> {
    await this.grants.remove(administered(access).target, { userId });
  }

  @Patch('teams/:teamId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'updateTeamPermissionInSpace', summary: "Change a team's role on the space" })
  @ApiNoContentResponse()
  async updateTeam(@CurrentSpaceAccess() access: SpaceAccess, @Param('teamId') teamId: string, @Body() dto: UpdateGrantDto): Promise<void> {
    await this.grants.updateRole(administered(access).target, { teamId }, dto.role);
  }

  @Delete('teams/:teamId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'removeTeamFromSpace', summary: "Remove a team's explicit role on the space" })
  @ApiNoContentResponse()
  async removeTeam(@CurrentSpaceAccess() access: SpaceAccess, @Param('teamId') teamId: string): Promise<void> {
    await this.grants.remove(administered(access).target, { teamId });
  }
}

/** What the grants of the route's space are on, and the caller's role in its organization. */
function administered({ space, organizationRole }: SpaceAccess): { target: GrantTarget; organizationRole: MemberRoleOrGuest } {
  return { target: { kind: 'space', id: space.id, organizationId: space.organizationId }, organizationRole };
}
