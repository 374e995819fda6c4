import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the invites module and their HTTP statuses. */
export const INVITE_ERRORS = {
  'invite.forbidden': 403,
  /** An invitation that is not the caller's, or no longer pending (accepted, declined): never says which. */
  'invite.not_found': 404,
} as const satisfies ErrorStatusTable;

export type InviteErrorCode = keyof typeof INVITE_ERRORS;

/** The error to throw for a broken rule of the invites module: `throw inviteError('invite.forbidden', message)`. */
export const inviteError = (code: InviteErrorCode, message: string) => new DomainError(code, message);
