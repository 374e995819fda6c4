import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the operator actions and their HTTP statuses. */
export const ADMIN_ERRORS = {
  'admin.already_member': 400,
  'admin.token_not_found': 404,
} as const satisfies ErrorStatusTable;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** The error to throw for a broken rule of the operator actions: `throw adminError('admin.already_member', message)`. */
export const adminError = (code: AdminErrorCode, message: string) => new DomainError(code, message);
