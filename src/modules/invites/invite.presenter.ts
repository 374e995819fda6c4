/** The outcome of an invite request, as the public description's `inviteUsersToOrganization` answers it. */
export interface InviteResult {
  /** Users who joined the organization with this request (created first when new). */
  addedUserIds: string[];
  /** E-mails of people who were already members: left unchanged. */
  alreadyMembers: string[];
}

export interface InviteResultJson {
  users: string[];
  invited: number;
  /** Not in the public schema (which allows extra fields): tells the caller which e-mails changed nothing. */
  alreadyMembers: string[];
}

export function presentInviteResult({ addedUserIds, alreadyMembers }: InviteResult): InviteResultJson {
  return { users: addedUserIds, invited: addedUserIds.length, alreadyMembers };
}
