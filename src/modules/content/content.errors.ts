import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the content module (revisions, pages, files, links, search, import; statuses: `src/error-codes.ts`). */
export type ContentErrorCode =
  | 'content.revision_not_found'
  | 'content.page_not_found'
  | 'content.file_not_found'
  | 'content.reusable_content_not_found'
  | 'content.computed_source_unsupported'
  | 'content.invalid_computed_source'
  | 'content.document_not_found'
  | 'content.file_data_missing'
  | 'content.duplicate_slug'
  | 'content.invalid_pages'
  | 'content.import_bad_url'
  | 'content.file_url_invalid'
  | 'content.file_url_expired'
  | 'content.text_time_limit'
  | 'content.git_bad_repository';

/** The error to throw for a broken rule of the content module: `throw contentError('content.page_not_found', message)`. */
export const contentError = (code: ContentErrorCode, message: string) => new DomainError(code, message);
