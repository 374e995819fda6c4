import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { UsersService } from '../users/users.service';
import { ListMembersQueryDto } from './dto/list-members-query.dto';
import { UpdateMemberDto } from './dto/update-member.dto';
import { MemberJson, presentMember, presentVisitorClaims, VisitorClaimsJson } from './member.presenter';
import type { MemberRow } from './member.read-model';
import { MembersService } from './members.service';

@ApiTags('members')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@OrgRole('guest')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId')
export class MembersController {
  constructor(
    private readonly members: MembersService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  /** A member as the caller may see them (no e-mail for a guest-only tie: user.policy.ts). */
  private async present(caller: Membership, row: MemberRow): Promise<MemberJson> {
    return presentMember(row, this.config, await this.users.emailVisibility(caller.userId, [row.user.id]));
  }

  @Get('members')
  @OrgRole('member')
  @ApiOperation({ operationId: 'listMembersInOrganizationById', summary: 'List the members of an organization' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationMember') })
  async list(@CurrentMembership() caller: Membership, @Query() query: ListMembersQueryDto) {
    const page = await this.members.list(caller, query);
    const emails = await this.users.emailVisibility(
      caller.userId,
      page.items.map((row) => row.user.id),
    );
    return mapPage(page, (row) => presentMember(row, this.config, emails));
  }

  @Get('members/:userId')
  @ApiOperation({ operationId: 'getMemberInOrganizationById', summary: 'Get a member of an organization' })
  @ApiOkResponse({ schema: publicSchema('OrganizationMember') })
  async get(@CurrentMembership() caller: Membership, @Param('userId') userId: string): Promise<MemberJson> {
    return this.present(caller, await this.members.get(caller, userId));
  }

  @Patch('members/:userId')
  @OrgRole('admin')
  @ApiOperation({ operationId: 'updateMemberInOrganizationById', summary: "Change a member's role (admins only)" })
  @ApiOkResponse({ schema: publicSchema('OrganizationMember') })
  async update(@CurrentMembership() caller: Membership, @Param('userId') userId: string, @Body() dto: UpdateMemberDto): Promise<MemberJson> {
    return this.present(caller, await this.members.updateRole(caller, userId, dto.role));
  }

  @Delete('members/:userId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'removeMemberFromOrganizationById', summary: 'Remove a member (admins), or leave the organization' })
  @ApiNoContentResponse({ description: 'The member was removed, with their team memberships and grants' })
  async remove(@CurrentMembership() caller: Membership, @Param('userId') userId: string): Promise<void> {
    await this.members.remove(caller, userId);
  }

  @Post('ping')
  @HttpCode(200)
  @ApiOperation({ operationId: 'updateOrganizationMemberLastSeenAt', summary: "Record the caller's activity; returns their signed visitor claims" })
  @ApiOkResponse({
    schema: { type: 'object', properties: { gitbookVisitorClaims: { type: 'string', description: 'HS256 JWT of the caller’s visitor claims' } } },
  })
  async ping(@CurrentMembership() caller: Membership): Promise<VisitorClaimsJson> {
    return presentVisitorClaims(await this.members.ping(caller));
  }

  @Post('members/:userId/sso')
  @HttpCode(200)
  @OrgRole('admin')
  @ApiOperation({ operationId: 'setUserAsSSOMemberForOrganization', summary: 'Mark a member as able to sign in with SSO (admins only)' })
  @ApiOkResponse({ schema: publicSchema('OrganizationMember') })
  async markSso(@CurrentMembership() caller: Membership, @Param('userId') userId: string): Promise<MemberJson> {
    return this.present(caller, await this.members.markSso(caller, userId));
  }
}
