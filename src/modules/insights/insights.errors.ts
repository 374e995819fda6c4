import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the insights module (their HTTP statuses: `src/error-codes.ts`). */
export type InsightsErrorCode = 'insights.site_not_found' | 'insights.invalid_event' | 'insights.invalid_query';

/** The error to throw for a broken rule of the insights module: `throw insightsError('insights.invalid_query', message)`. */
export const insightsError = (code: InsightsErrorCode, message: string) => new DomainError(code, message);
