import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of published content and their HTTP statuses. */
export const PUBLISHED_ERRORS = {
  'published.not_found': 404,
  'published.site_token_forbidden': 403,
  'published.invalid_publishing_auth': 400,
} as const satisfies ErrorStatusTable;

export type PublishedErrorCode = keyof typeof PUBLISHED_ERRORS;

export const publishedError = (code: PublishedErrorCode, message: string) => new DomainError(code, message);
