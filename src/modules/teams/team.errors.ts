import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the teams module and their HTTP statuses. */
export const TEAM_ERRORS = {
  'team.not_found': 404,
  'team.list_forbidden': 403,
  'team.view_forbidden': 403,
  'team.manage_forbidden': 403,
  'team.members_forbidden': 403,
  'team.unknown_members': 400,
} as const satisfies ErrorStatusTable;

export type TeamErrorCode = keyof typeof TEAM_ERRORS;

/** The error to throw for a broken rule of the teams module: `throw teamError('team.not_found', message)`. */
export const teamError = (code: TeamErrorCode, message: string) => new DomainError(code, message);
