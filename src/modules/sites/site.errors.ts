import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the sites module and their HTTP statuses. */
export const SITE_ERRORS = {
  'site.not_found': 404,
  'site.forbidden': 403,
  'site.space_not_found': 404,
  'site.section_not_found': 404,
  'site.section_group_not_found': 404,
  'site.share_link_not_found': 404,
  'site.invalid_structure': 400,
  'site.invalid_adaptive_schema': 400,
  'site.invalid_condition': 400,
  'site.invalid_customization': 400,
  'site.path_taken': 409,
  'site.no_site_spaces': 400,
} as const satisfies ErrorStatusTable;

export type SiteErrorCode = keyof typeof SITE_ERRORS;

/** The error to throw for a broken rule of the sites module: `throw siteError('site.not_found', message)`. */
export const siteError = (code: SiteErrorCode, message: string) => new DomainError(code, message);
