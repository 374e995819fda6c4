import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/**
 * Stable error codes of the access module and their HTTP statuses. The refusals of a space or
 * collection route (`space.not_found`, `space.locked`…) are access decisions, so they are declared
 * here, below the modules that own the space and collection rules, which throw them too.
 */
export const ACCESS_ERRORS = {
  'space.not_found': 404,
  'space.locked': 403,
  'space.action_forbidden': 403,
  'collection.not_found': 404,
  'collection.action_forbidden': 403,
  'collection.top_level_forbidden': 403,
  'access.member_spaces_forbidden': 403,
  'access.member_not_found': 404,
  'access.grant_empty': 400,
  'access.grant_unknown_user': 404,
  'access.grant_unknown_team': 404,
  'access.grant_not_found': 404,
  'access.transfer_same_organization': 400,
  'access.transfer_forbidden': 403,
  'access.transfer_target_not_found': 404,
  'access.transfer_target_forbidden': 403,
} as const satisfies ErrorStatusTable;

export type AccessErrorCode = keyof typeof ACCESS_ERRORS;

/** The error to throw for a refusal of the access module: `throw accessError('space.not_found', message)`. */
export const accessError = (code: AccessErrorCode, message: string) => new DomainError(code, message);
