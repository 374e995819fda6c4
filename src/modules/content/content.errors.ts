import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the content module (revisions, pages, files, links, search, import) and their HTTP statuses. */
export const CONTENT_ERRORS = {
  'content.revision_not_found': 404,
  'content.page_not_found': 404,
  'content.file_not_found': 404,
  'content.reusable_content_not_found': 404,
  'content.computed_source_unsupported': 422,
  'content.invalid_computed_source': 400,
  'content.document_not_found': 404,
  'content.file_data_missing': 404,
  'content.duplicate_slug': 400,
  'content.invalid_pages': 400,
  'content.import_bad_url': 400,
  'content.file_url_invalid': 403,
  'content.file_url_expired': 403,
  'content.text_time_limit': 422,
  'content.git_bad_repository': 400,
} as const satisfies ErrorStatusTable;

export type ContentErrorCode = keyof typeof CONTENT_ERRORS;

/** The error to throw for a broken rule of the content module: `throw contentError('content.page_not_found', message)`. */
export const contentError = (code: ContentErrorCode, message: string) => new DomainError(code, message);
