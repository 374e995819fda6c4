import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the translations module and their HTTP statuses. */
export const TRANSLATION_ERRORS = {
  'translation.not_found': 404,
  'translation.view_forbidden': 403,
  'translation.manage_forbidden': 403,
} as const satisfies ErrorStatusTable;

export type TranslationErrorCode = keyof typeof TRANSLATION_ERRORS;

/** The error to throw for a broken rule of the translations module: `throw translationError('translation.not_found', message)`. */
export const translationError = (code: TranslationErrorCode, message: string) => new DomainError(code, message);
