import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the spaces module and their HTTP statuses (`space.not_found` and the refusals: `access.errors.ts`). */
export const SPACE_ERRORS = {
  'space.in_collection_outside_collection': 400,
  'space.retention_expired': 404,
  'space.not_deleted': 409,
  'space.move_empty': 400,
  'space.moved_meanwhile': 409,
  /** A merge rule names users who are not members of the space's organization. */
  'space.merge_rules_invalid': 400,
} as const satisfies ErrorStatusTable;

export type SpaceErrorCode = keyof typeof SPACE_ERRORS;

/** The error to throw for a broken rule of the spaces module: `throw spaceError('space.not_deleted', message)`. */
export const spaceError = (code: SpaceErrorCode, message: string) => new DomainError(code, message);
