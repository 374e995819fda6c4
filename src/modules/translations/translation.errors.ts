import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the translations module (their HTTP statuses: `src/error-codes.ts`). */
export type TranslationErrorCode = 'translation.not_found' | 'translation.view_forbidden' | 'translation.manage_forbidden';

/** The error to throw for a broken rule of the translations module: `throw translationError('translation.not_found', message)`. */
export const translationError = (code: TranslationErrorCode, message: string) => new DomainError(code, message);
