import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the change-requests module and their HTTP statuses. */
export const CHANGE_REQUEST_ERRORS = {
  'change_request.not_found': 404,
  'change_request.closed': 409,
  'change_request.merged': 409,
  'change_request.conflict': 409,
  'change_request.invalid_change': 400,
  'change_request.file_fetch_failed': 400,
  'change_request.pdf_page_required': 400,
  'change_request.pdf_failed': 422,
  'change_request.own_review': 403,
  'change_request.review_not_found': 404,
  'change_request.invalid_reviewers': 400,
  'change_request.merge_rule': 409,
} as const satisfies ErrorStatusTable;

export type ChangeRequestErrorCode = keyof typeof CHANGE_REQUEST_ERRORS;

/** The error to throw for a broken rule of the change-requests module: `throw changeRequestError('change_request.not_found', message)`. */
export const changeRequestError = (code: ChangeRequestErrorCode, message: string) => new DomainError(code, message);
