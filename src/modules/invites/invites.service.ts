import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { canInviteMembers } from '../members/member.policy';
import { MembersRepository } from '../members/members.repository';
import { Membership } from '../organizations/membership.entity';
import { Organization } from '../organizations/organization.entity';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { UsersService } from '../users/users.service';
import { InviteUsersDto } from './dto/invite-users.dto';
import { InviteResult } from './invite.read-model';
import { inviteError } from './invite.errors';

@Injectable()
export class InvitesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsRepository,
    private readonly members: MembersRepository,
  ) {}

  /**
   * Adds each invitee to the organization, creating users for unknown e-mails, in one transaction.
   * Role: the invitee's own, else the request's, else the organization's default. Existing members
   * are left unchanged and reported. An e-mail named twice counts once (the first wins).
   */
  async invite(caller: Membership, dto: InviteUsersDto): Promise<InviteResult> {
    if (!canInviteMembers(caller)) throw inviteError('invite.forbidden', 'Only organization admins can invite members');
    return this.dataSource.transaction(async (em) => {
      const organization = (await this.organizations.findById(caller.organizationId, em)) as Organization;
      const seen = new Set<string>();
      const result: InviteResult = { addedUserIds: [], alreadyMembers: [] };
      for (const invitee of dto.emails) {
        if (seen.has(invitee.email.toLowerCase())) continue;
        seen.add(invitee.email.toLowerCase());
        const { user } = await this.users.findOrCreate(invitee.email, undefined, em);
        if (await this.organizations.findMembership(organization.id, user.id, em)) {
          result.alreadyMembers.push(invitee.email);
          continue;
        }
        const role = invitee.role !== undefined ? invitee.role : dto.role !== undefined ? dto.role : organization.defaultRole;
        await this.organizations.insertMembership({ organizationId: organization.id, userId: user.id, role }, em);
        result.addedUserIds.push(user.id);
      }
      if (dto.sso) await this.members.setSso(organization.id, result.addedUserIds, em);
      return result;
    });
  }
}
