import type { Organization } from '../organizations/organization.entity';
import type { OrganizationInvite } from './organization-invite.entity';

/** The outcome of an invite request, as the public description's `inviteUsersToOrganization` answers it. */
export interface InviteResult {
  /** Users who joined the organization with this request (new e-mails: created first). */
  addedUserIds: string[];
  /** E-mails of people who were already members: left unchanged. */
  alreadyMembers: string[];
  /** E-mails of existing users: invited, and members only once they accept. */
  pending: string[];
}

/** A pending invitation with the organization it leads into. */
export interface PendingInvite {
  invite: OrganizationInvite;
  organization: Organization;
}
