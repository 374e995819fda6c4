import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the collections module and the content tree and their HTTP statuses. */
export const COLLECTION_ERRORS = {
  'collection.not_empty': 409,
  'collection.move_empty': 400,
  'collection.cycle': 400,
  'collection.position_self': 400,
  'collection.position_not_beside': 400,
  'collection.position_ambiguous': 400,
  'collection.position_missing': 400,
} as const satisfies ErrorStatusTable;

export type CollectionErrorCode = keyof typeof COLLECTION_ERRORS;

/** The error to throw for a broken rule of the collections module: `throw collectionError('collection.cycle', message)`. */
export const collectionError = (code: CollectionErrorCode, message: string) => new DomainError(code, message);
