/** Stable error codes of the invites module (statuses: `modules/error-codes.ts`). */
export type InviteErrorCode = 'invite.forbidden';
