import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the comments module (their HTTP statuses: `src/error-codes.ts`). */
export type CommentErrorCode =
  | 'comment.not_found'
  | 'comment.reply_not_found'
  | 'comment.edit_forbidden'
  | 'comment.resolve_forbidden'
  | 'comment.delete_forbidden'
  | 'comment.unknown_page'
  | 'comment.unknown_node';

/** The error to throw for a broken rule of the comments module: `throw commentError('comment.not_found', message)`. */
export const commentError = (code: CommentErrorCode, message: string) => new DomainError(code, message);
