import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the operator actions (their HTTP statuses: `src/error-codes.ts`). */
export type AdminErrorCode = 'admin.already_member';

/** The error to throw for a broken rule of the operator actions: `throw adminError('admin.already_member', message)`. */
export const adminError = (code: AdminErrorCode, message: string) => new DomainError(code, message);
