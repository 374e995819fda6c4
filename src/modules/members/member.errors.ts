import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the members module and their HTTP statuses. */
export const MEMBER_ERRORS = {
  'member.not_found': 404,
  'member.list_forbidden': 403,
  'member.view_forbidden': 403,
  'member.update_forbidden': 403,
  'member.remove_forbidden': 403,
  'member.last_admin': 409,
} as const satisfies ErrorStatusTable;

export type MemberErrorCode = keyof typeof MEMBER_ERRORS;

/** The error to throw for a broken rule of the members module: `throw memberError('member.not_found', message)`. */
export const memberError = (code: MemberErrorCode, message: string) => new DomainError(code, message);
