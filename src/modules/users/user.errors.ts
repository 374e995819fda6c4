import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the users module (their HTTP statuses: `src/error-codes.ts`). */
export type UserErrorCode = 'user.not_found';

/** The error to throw for a broken rule of the users module: `throw userError('user.not_found', message)`. */
export const userError = (code: UserErrorCode, message: string) => new DomainError(code, message);
