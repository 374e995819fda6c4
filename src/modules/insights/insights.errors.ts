import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the insights module and their HTTP statuses. */
export const INSIGHTS_ERRORS = {
  'insights.site_not_found': 404,
  'insights.invalid_event': 400,
  'insights.invalid_query': 400,
} as const satisfies ErrorStatusTable;

export type InsightsErrorCode = keyof typeof INSIGHTS_ERRORS;

/** The error to throw for a broken rule of the insights module: `throw insightsError('insights.invalid_query', message)`. */
export const insightsError = (code: InsightsErrorCode, message: string) => new DomainError(code, message);
