import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the spaces module (statuses: `src/error-codes.ts`; `space.not_found` and the refusals: `access.errors.ts`). */
export type SpaceErrorCode =
  | 'space.in_collection_outside_collection'
  | 'space.retention_expired'
  | 'space.not_deleted'
  | 'space.move_empty'
  | 'space.moved_meanwhile'
  /** A merge rule names users who are not members of the space's organization. */
  | 'space.merge_rules_invalid';

/** The error to throw for a broken rule of the spaces module: `throw spaceError('space.not_deleted', message)`. */
export const spaceError = (code: SpaceErrorCode, message: string) => new DomainError(code, message);
