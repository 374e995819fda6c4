import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the members module (their HTTP statuses: `src/error-codes.ts`). */
export type MemberErrorCode =
  'member.not_found' | 'member.list_forbidden' | 'member.view_forbidden' | 'member.update_forbidden' | 'member.remove_forbidden' | 'member.last_admin';

/** The error to throw for a broken rule of the members module: `throw memberError('member.not_found', message)`. */
export const memberError = (code: MemberErrorCode, message: string) => new DomainError(code, message);
