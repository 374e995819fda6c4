import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { listSchemaOf, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { MemberJson, presentMember } from '../members/member.presenter';
import { User } from '../users/user.entity';
import { ownEmail } from '../users/user.policy';
import { presentPendingInvite } from './invite.presenter';
import { InvitesService } from './invites.service';

const PENDING_INVITE_SCHEMA = {
  type: 'object',
  required: ['object', 'id', 'organization', 'role', 'sso', 'createdAt'],
  properties: {
    object: { type: 'string', enum: ['organization-invite'] },
    id: { type: 'string' },
    organization: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'string' }, title: { type: 'string' } } },
    role: { type: 'string', nullable: true, enum: ['admin', 'create', 'review', 'edit', 'comment', 'read'], description: 'null: a guest' },
    sso: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

/**
 * The caller's own pending invitations (invitations of existing users). Only the invitee can see,
 * accept or decline one; anyone else's answers 404. Not in the public description, which has no
 * route for them: see docs/architecture.md.
 */
@ApiTags('users')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/user/invites')
export class UserInvitesController {
  constructor(
    private readonly invites: InvitesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listAuthenticatedUserInvites', summary: "The caller's pending invitations into organizations, oldest first" })
  @ApiOkResponse({ schema: listSchemaOf(PENDING_INVITE_SCHEMA) })
  async list(@CurrentUser() user: User, @Query() query: ListQueryDto) {
    return mapPage(await this.invites.listMine(user, query), presentPendingInvite);
  }

  @Post(':inviteId/accept')
  @HttpCode(200)
  @ApiOperation({ operationId: 'acceptAuthenticatedUserInvite', summary: 'Accept an invitation: join the organization with the invited role' })
  @ApiOkResponse({ schema: publicSchema('OrganizationMember') })
  async accept(@CurrentUser() user: User, @Param('inviteId') inviteId: string): Promise<MemberJson> {
    return presentMember(await this.invites.accept(user, inviteId), this.config, ownEmail(user.id));
  }

  @Delete(':inviteId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'declineAuthenticatedUserInvite', summary: 'Decline an invitation' })
  @ApiNoContentResponse({ description: 'The invitation is gone' })
  async decline(@CurrentUser() user: User, @Param('inviteId') inviteId: string): Promise<void> {
    await this.invites.decline(user, inviteId);
  }
}
