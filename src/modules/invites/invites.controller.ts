import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { Membership } from '../organizations/membership.entity';
import { CurrentMembership, OrgRole } from '../organizations/organization-member.guard';
import { InviteeDto, InviteUsersDto } from './dto/invite-users.dto';
import { InviteResultJson, presentInviteResult } from './invite.presenter';
import { InvitesService } from './invites.service';

@ApiTags('members')
@ApiBearerAuth()
@ApiParam({ name: 'organizationId' })
@ApiExtraModels(InviteeDto)
@OrgRole('admin')
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/orgs/:organizationId/invites')
export class InvitesController {
  constructor(private readonly invites: InvitesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'inviteUsersToOrganization', summary: 'Add new people by e-mail, invite existing users (admins only)' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['users', 'invited', 'alreadyMembers', 'pending'],
      properties: {
        users: { type: 'array', items: { type: 'string' }, description: 'Ids of the users added to the organization' },
        invited: { type: 'number', description: 'How many users were added' },
        alreadyMembers: { type: 'array', items: { type: 'string' }, description: 'E-mails of people already members, left unchanged' },
        pending: {
          type: 'array',
          items: { type: 'string' },
          description: 'E-mails of existing users: invited, members only once they accept (GET /v1/user/invites)',
        },
      },
    },
  })
  async invite(@CurrentMembership() caller: Membership, @Body() dto: InviteUsersDto): Promise<InviteResultJson> {
    return presentInviteResult(await this.invites.invite(caller, dto));
  }
}
