import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of what readers reach: site redirects and site search and their HTTP statuses. */
export const SITE_READERS_ERRORS = {
  'site_redirect.not_found': 404,
  'site_redirect.invalid': 400,
  'site_redirect.source_taken': 409,
  'site_search.invalid_scope': 400,
} as const satisfies ErrorStatusTable;

export type SiteReadersErrorCode = keyof typeof SITE_READERS_ERRORS;

export const siteRedirectError = (code: SiteReadersErrorCode, message: string) => new DomainError(code, message);
