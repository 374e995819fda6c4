import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the change-requests module (their HTTP statuses: `src/error-codes.ts`). */
export type ChangeRequestErrorCode =
  | 'change_request.not_found'
  | 'change_request.closed'
  | 'change_request.merged'
  | 'change_request.conflict'
  | 'change_request.invalid_change'
  | 'change_request.file_fetch_failed'
  | 'change_request.pdf_page_required'
  | 'change_request.pdf_failed'
  | 'change_request.own_review'
  | 'change_request.review_not_found'
  | 'change_request.invalid_reviewers'
  | 'change_request.merge_rule';

/** The error to throw for a broken rule of the change-requests module: `throw changeRequestError('change_request.not_found', message)`. */
export const changeRequestError = (code: ChangeRequestErrorCode, message: string) => new DomainError(code, message);
