/** Stable error codes of the translations module (statuses: `modules/error-codes.ts`). */
export type TranslationErrorCode = 'translation.not_found' | 'translation.view_forbidden' | 'translation.manage_forbidden';
