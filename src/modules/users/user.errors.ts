import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the users module and their HTTP statuses. */
export const USER_ERRORS = {
  'user.not_found': 404,
} as const satisfies ErrorStatusTable;

export type UserErrorCode = keyof typeof USER_ERRORS;

/** The error to throw for a broken rule of the users module: `throw userError('user.not_found', message)`. */
export const userError = (code: UserErrorCode, message: string) => new DomainError(code, message);
