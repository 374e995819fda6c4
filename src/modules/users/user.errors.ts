/** Stable error codes of the users module (statuses: `modules/error-codes.ts`). */
export type UserErrorCode = 'user.not_found';
