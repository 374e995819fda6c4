import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of what readers reach: site redirects and site search (their HTTP statuses: `src/error-codes.ts`). */
export type SiteReadersErrorCode = 'site_redirect.not_found' | 'site_redirect.invalid' | 'site_redirect.source_taken' | 'site_search.invalid_scope';

export const siteRedirectError = (code: SiteReadersErrorCode, message: string) => new DomainError(code, message);
