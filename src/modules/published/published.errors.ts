import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of published content (their HTTP statuses: `src/error-codes.ts`). */
export type PublishedErrorCode = 'published.not_found' | 'published.site_token_forbidden' | 'published.invalid_publishing_auth';

export const publishedError = (code: PublishedErrorCode, message: string) => new DomainError(code, message);
