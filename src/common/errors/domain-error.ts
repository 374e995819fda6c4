/** The HTTP statuses a domain rule may answer with: the client's fault, never a server failure. */
export type DomainErrorStatus = 400 | 403 | 404 | 409 | 422;

/**
 * A broken domain rule with a stable `code` (`team.not_found`): what logs, jobs and a future client
 * can rely on, unlike the message. Modules do not construct it directly: they call `domainError(code,
 * message)` from `modules/error-codes.ts`, whose one exhaustive table gives the status; this layer
 * only carries both, so `common/` stays below every module.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: string,
    readonly status: DomainErrorStatus,
    message: string,
  ) {
    super(message);
  }
}
