import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the collections module and the content tree (statuses: `src/error-codes.ts`). */
export type CollectionErrorCode =
  | 'collection.not_empty'
  | 'collection.move_empty'
  | 'collection.cycle'
  | 'collection.position_self'
  | 'collection.position_not_beside'
  | 'collection.position_ambiguous'
  | 'collection.position_missing';

/** The error to throw for a broken rule of the collections module: `throw collectionError('collection.cycle', message)`. */
export const collectionError = (code: CollectionErrorCode, message: string) => new DomainError(code, message);
