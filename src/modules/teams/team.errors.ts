/** Stable error codes of the teams module (statuses: `modules/error-codes.ts`). */
export type TeamErrorCode =
  'team.not_found' | 'team.list_forbidden' | 'team.view_forbidden' | 'team.manage_forbidden' | 'team.members_forbidden' | 'team.unknown_members';
