import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the teams module (their HTTP statuses: `src/error-codes.ts`). */
export type TeamErrorCode =
  'team.not_found' | 'team.list_forbidden' | 'team.view_forbidden' | 'team.manage_forbidden' | 'team.members_forbidden' | 'team.unknown_members';

/** The error to throw for a broken rule of the teams module: `throw teamError('team.not_found', message)`. */
export const teamError = (code: TeamErrorCode, message: string) => new DomainError(code, message);
