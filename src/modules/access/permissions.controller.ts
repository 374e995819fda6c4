import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Type } from '@nestjs/common';
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
import type { CollectionAccess } from './collection-access.service';
import { InviteDto, UpdateGrantDto } from './dto/invite.dto';
import { presentTeamGrant, presentUserGrant } from './grant.presenter';
import { TEAM_GRANTS_SCHEMA, USER_GRANTS_SCHEMA } from './grant-schemas';
import { GrantsService } from './grants.service';
import type { GrantTarget } from './grant.read-model';
import { CollectionAction, CurrentCollectionAccess, CurrentSpaceAccess, SpaceAction } from './route-access.guard';
import type { SpaceAccess } from './space-access.service';

/** What holds explicit grants: a space or a collection, and how its route names and checks it. */
interface GrantHolder<A> {
  className: string;
  tag: 'spaces' | 'collections';
  path: string;
  /** `Space` or `Collection`: the end of every operation id (`inviteToSpace`…). */
  kind: 'Space' | 'Collection';
  /** Every route needs `admin` on the holder. */
  admin: ClassDecorator & MethodDecorator;
  access: () => ParameterDecorator;
  /** What the grants of the route's holder are on, and the caller's role in its organization. */
  administered: (access: A) => { target: GrantTarget; organizationRole: MemberRoleOrGuest };
}

/** The seven grant routes (section 4.2), built once for each kind of holder. */
function permissionsController<A>(holder: GrantHolder<A>): Type<unknown> {
  const noun = holder.kind.toLowerCase();
  const Access = holder.access;

  @ApiTags(holder.tag)
  @ApiBearerAuth()
  @NotForScripts()
  @NotForSiteTokens()
  @Controller(holder.path)
  @holder.admin
  class PermissionsRoutes {
    constructor(
      readonly grants: GrantsService,
      readonly config: AppConfig,
      readonly users: UsersService,
    ) {}

    @Post()
    @HttpCode(204)
    @ApiOperation({ operationId: `inviteTo${holder.kind}`, summary: `Grant a role on the ${noun} to users and teams of its organization` })
    @ApiNoContentResponse()
    async invite(@Access() access: A, @Body() dto: InviteDto): Promise<void> {
      await this.grants.invite(holder.administered(access).target, dto);
    }

    @Get('users')
    @ApiOperation({ operationId: `listUserPermissionsIn${holder.kind}`, summary: `List the users with an explicit role on the ${noun}` })
    @ApiOkResponse({ schema: USER_GRANTS_SCHEMA })
    async listUsers(@CurrentUser() user: User, @Access() access: A, @Query() query: ListQueryDto) {
      const page = await this.grants.listUsers(holder.administered(access).target, query);
      const emails = await this.users.emailVisibility(
        user.id,
        page.items.map((grant) => grant.user.id),
      );
      return mapPage(page, (grant) => presentUserGrant(grant, this.config, emails));
    }

    @Get('teams')
    @ApiOperation({ operationId: `listTeamPermissionsIn${holder.kind}`, summary: `List the teams with an explicit role on the ${noun}` })
    @ApiOkResponse({ schema: TEAM_GRANTS_SCHEMA })
    async listTeams(@CurrentUser() user: User, @Access() access: A, @Query() query: ListQueryDto) {
      const { target, organizationRole } = holder.administered(access);
      const page = await this.grants.listTeams(target, user.id, query);
      return mapPage(page, (grant) => presentTeamGrant(grant, organizationRole));
    }

    @Patch('users/:userId')
    @HttpCode(204)
    @ApiOperation({ operationId: `updateUserPermissionIn${holder.kind}`, summary: `Change a user's role on the ${noun}` })
    @ApiNoContentResponse()
    async updateUser(@Access() access: A, @Param('userId') userId: string, @Body() dto: UpdateGrantDto): Promise<void> {
      await this.grants.updateRole(holder.administered(access).target, { userId }, dto.role);
    }

    @Delete('users/:userId')
    @HttpCode(204)
    @ApiOperation({ operationId: `removeUserFrom${holder.kind}`, summary: `Remove a user's explicit role on the ${noun}` })
    @ApiNoContentResponse()
    async removeUser(@Access() access: A, @Param('userId') userId: string): Promise<void> {
      await this.grants.remove(holder.administered(access).target, { userId });
    }

    @Patch('teams/:teamId')
    @HttpCode(204)
    @ApiOperation({ operationId: `updateTeamPermissionIn${holder.kind}`, summary: `Change a team's role on the ${noun}` })
    @ApiNoContentResponse()
    async updateTeam(@Access() access: A, @Param('teamId') teamId: string, @Body() dto: UpdateGrantDto): Promise<void> {
      await this.grants.updateRole(holder.administered(access).target, { teamId }, dto.role);
    }

    @Delete('teams/:teamId')
    @HttpCode(204)
    @ApiOperation({ operationId: `removeTeamFrom${holder.kind}`, summary: `Remove a team's explicit role on the ${noun}` })
    @ApiNoContentResponse()
    async removeTeam(@Access() access: A, @Param('teamId') teamId: string): Promise<void> {
      await this.grants.remove(holder.administered(access).target, { teamId });
    }
  }
  Object.defineProperty(PermissionsRoutes, 'name', { value: holder.className });
  return PermissionsRoutes;
}

/** Explicit grants on a space; every route needs `admin` on the space. */
export const SpacePermissionsController = permissionsController<SpaceAccess>({
  className: 'SpacePermissionsController',
  tag: 'spaces',
  path: 'v1/spaces/:spaceId/permissions',
  kind: 'Space',
  admin: SpaceAction('admin'),
  access: CurrentSpaceAccess,
  administered: ({ space, organizationRole }) => ({ target: { kind: 'space', id: space.id, organizationId: space.organizationId }, organizationRole }),
});

/** Explicit grants on a collection; every route needs `admin` on the collection. */
export const CollectionPermissionsController = permissionsController<CollectionAccess>({
  className: 'CollectionPermissionsController',
  tag: 'collections',
  path: 'v1/collections/:collectionId/permissions',
  kind: 'Collection',
  admin: CollectionAction('admin'),
  access: CurrentCollectionAccess,
  administered: ({ collection, organizationRole }) => ({
    target: { kind: 'collection', id: collection.id, organizationId: collection.organizationId },
    organizationRole,
  }),
});
