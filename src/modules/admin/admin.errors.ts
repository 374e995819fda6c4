/** Stable error codes of the operator actions (statuses: `modules/error-codes.ts`). */
export type AdminErrorCode = 'admin.already_member';
