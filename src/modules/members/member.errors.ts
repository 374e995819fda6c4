/** Stable error codes of the members module (statuses: `modules/error-codes.ts`). */
export type MemberErrorCode =
  'member.not_found' | 'member.list_forbidden' | 'member.view_forbidden' | 'member.update_forbidden' | 'member.remove_forbidden' | 'member.last_admin';
