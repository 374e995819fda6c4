import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the invites module (their HTTP statuses: `src/error-codes.ts`). */
export type InviteErrorCode =
  | 'invite.forbidden'
  /** An invitation that is not the caller's, or no longer pending (accepted, declined): never says which. */
  | 'invite.not_found';

/** The error to throw for a broken rule of the invites module: `throw inviteError('invite.forbidden', message)`. */
export const inviteError = (code: InviteErrorCode, message: string) => new DomainError(code, message);
