import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the comments module and their HTTP statuses. */
export const COMMENT_ERRORS = {
  'comment.not_found': 404,
  'comment.reply_not_found': 404,
  'comment.edit_forbidden': 403,
  'comment.resolve_forbidden': 403,
  'comment.delete_forbidden': 403,
  'comment.unknown_page': 400,
  'comment.unknown_node': 400,
} as const satisfies ErrorStatusTable;

export type CommentErrorCode = keyof typeof COMMENT_ERRORS;

/** The error to throw for a broken rule of the comments module: `throw commentError('comment.not_found', message)`. */
export const commentError = (code: CommentErrorCode, message: string) => new DomainError(code, message);
