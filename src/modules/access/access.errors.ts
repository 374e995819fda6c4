import { DomainError } from '../../common/errors/domain-error';

/**
 * Stable error codes of the access module (statuses: `src/error-codes.ts`). The refusals of a space or
 * collection route (`space.not_found`, `space.locked`…) are access decisions, so they are declared
 * here, below the modules that own the space and collection rules, which throw them too.
 */
export type AccessErrorCode =
  | 'space.not_found'
  | 'space.locked'
  | 'space.action_forbidden'
  | 'collection.not_found'
  | 'collection.action_forbidden'
  | 'collection.top_level_forbidden'
  | 'access.member_spaces_forbidden'
  | 'access.member_not_found'
  | 'access.grant_empty'
  | 'access.grant_unknown_user'
  | 'access.grant_unknown_team'
  | 'access.grant_not_found'
  | 'access.transfer_same_organization'
  | 'access.transfer_forbidden'
  | 'access.transfer_target_not_found'
  | 'access.transfer_target_forbidden';

/** The error to throw for a refusal of the access module: `throw accessError('space.not_found', message)`. */
export const accessError = (code: AccessErrorCode, message: string) => new DomainError(code, message);
