import type { InviteResult } from './invite.read-model';

export interface InviteResultJson {
  users: string[];
  invited: number;
  /** Not in the public schema (which allows extra fields): tells the caller which e-mails changed nothing. */
  alreadyMembers: string[];
}

export function presentInviteResult({ addedUserIds, alreadyMembers }: InviteResult): InviteResultJson {
  return { users: addedUserIds, invited: addedUserIds.length, alreadyMembers };
}
