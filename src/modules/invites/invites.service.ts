import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { noteAuditDetails, noteAuditOrganization } from '../../common/audit/audit.context';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { canInviteMembers } from '../members/member.policy';
import type { MemberRow } from '../members/member.read-model';
import { MembersRepository } from '../members/members.repository';
import { Membership } from '../organizations/membership.entity';
import { Organization } from '../organizations/organization.entity';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { InviteUsersDto } from './dto/invite-users.dto';
import { inviteError } from './invite.errors';
import { InviteResult, PendingInvite } from './invite.read-model';
import { InvitesRepository } from './invites.repository';

@Injectable()
export class InvitesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsRepository,
    private readonly members: MembersRepository,
    private readonly invites: InvitesRepository,
  ) {}

  /**
   * Invites each e-mail, in one transaction. A new e-mail becomes a user and a member at once; the
   * e-mail of an existing user gets a pending invitation that only they can accept (no one joins
   * an organization without consent). Role: the invitee's own, else the request's, else the
   * organization's default. Existing members are left unchanged and reported. An e-mail named
   * twice counts once (the first wins).
   */
  async invite(caller: Membership, dto: InviteUsersDto): Promise<InviteResult> {
    if (!canInviteMembers(caller)) throw inviteError('invite.forbidden', 'Only organization admins can invite members');
    return this.dataSource.transaction(async (em) => {
      const organization = (await this.organizations.findById(caller.organizationId, em)) as Organization;
      const seen = new Set<string>();
      const result: InviteResult = { addedUserIds: [], alreadyMembers: [], pending: [] };
      const invitedUserIds: string[] = [];
      for (const invitee of dto.emails) {
        if (seen.has(invitee.email.toLowerCase())) continue;
        seen.add(invitee.email.toLowerCase());
        const role = invitee.role !== undefined ? invitee.role : dto.role !== undefined ? dto.role : organization.defaultRole;
        const { user, created } = await this.users.findOrCreate(invitee.email, undefined, em);
        if (!created) {
          if (await this.organizations.findMembership(organization.id, user.id, em)) {
            result.alreadyMembers.push(invitee.email);
            continue;
          }
          await this.invites.upsert(
            { id: newId(), organizationId: organization.id, userId: user.id, role, sso: dto.sso ?? false, invitedBy: caller.userId },
            em,
          );
          result.pending.push(invitee.email);
          invitedUserIds.push(user.id);
          continue;
        }
        await this.organizations.insertMembership({ organizationId: organization.id, userId: user.id, role }, em);
        result.addedUserIds.push(user.id);
      }
      if (dto.sso) await this.members.setSso(organization.id, result.addedUserIds, em);
      // The event's target is the organization; who joined and who was invited are its details (users' ids, not e-mails).
      noteAuditDetails({ addedUserIds: result.addedUserIds, invitedUserIds });
      return result;
    });
  }

  /** The caller's pending invitations. */
  listMine(user: User, query: ListQueryDto): Promise<Page<PendingInvite>> {
    return this.invites.listForUser(user.id, query);
  }

  /**
   * Makes the caller a member with the invited role (and SSO flag), and removes the invitation.
   * Another user's invitation answers 404, as an unknown one does. Already a member (added
   * meanwhile by an operator): the invitation is used up and the membership stays as it is.
   */
  async accept(user: User, inviteId: string): Promise<MemberRow> {
    return this.dataSource.transaction(async (em) => {
      const invite = await this.invites.findForUserLocked(inviteId, user.id, em);
      if (!invite) throw inviteError('invite.not_found', `Invite ${inviteId} not found`);
      await this.invites.deleteForUser(invite.id, user.id, em);
      if (!(await this.organizations.findMembership(invite.organizationId, user.id, em))) {
        await this.organizations.insertMembership({ organizationId: invite.organizationId, userId: user.id, role: invite.role }, em);
        if (invite.sso) await this.members.setSso(invite.organizationId, [user.id], em);
      }
      return (await this.members.find(invite.organizationId, user.id, em)) as MemberRow;
    });
  }

  /** Declines (deletes) one of the caller's invitations. */
  async decline(user: User, inviteId: string): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const organizationId = await this.invites.deleteForUser(inviteId, user.id, em);
      if (!organizationId) throw inviteError('invite.not_found', `Invite ${inviteId} not found`);
      noteAuditOrganization(organizationId);
    });
  }
}
