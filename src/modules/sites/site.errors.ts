import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the sites module (their HTTP statuses: `src/error-codes.ts`). */
export type SiteErrorCode =
  | 'site.not_found'
  | 'site.forbidden'
  | 'site.space_not_found'
  | 'site.section_not_found'
  | 'site.section_group_not_found'
  | 'site.share_link_not_found'
  | 'site.invalid_structure'
  | 'site.invalid_adaptive_schema'
  | 'site.invalid_condition'
  | 'site.invalid_customization'
  | 'site.path_taken'
  | 'site.no_site_spaces';

/** The error to throw for a broken rule of the sites module: `throw siteError('site.not_found', message)`. */
export const siteError = (code: SiteErrorCode, message: string) => new DomainError(code, message);
