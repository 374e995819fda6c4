/** The outcome of an invite request, as the public description's `inviteUsersToOrganization` answers it. */
export interface InviteResult {
  /** Users who joined the organization with this request (created first when new). */
  addedUserIds: string[];
  /** E-mails of people who were already members: left unchanged. */
  alreadyMembers: string[];
}
