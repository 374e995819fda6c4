/** The HTTP statuses a domain rule may answer with: the client's fault, never a server failure. */
/** 502: a service Quire called on the caller's behalf (an integration's script) failed to answer. */
export type DomainErrorStatus = 400 | 403 | 404 | 409 | 422 | 502;

/**
 * A broken domain rule with a stable `code` (`team.not_found`): what logs, jobs and a future client
 * can rely on, unlike the message. It carries no HTTP status: each module declares its codes with their
 * statuses in `<module>.errors.ts` (with a helper that throws only those), and the application composes
 * those tables into one (`src/error-codes.ts`), which gives each code its status at the HTTP edge, through
 * ERROR_STATUSES.
 */
export class DomainError<Code extends string = string> extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

/** Code → status, as the exception filter reads it. */
export type ErrorStatusTable = Readonly<Record<string, DomainErrorStatus>>;

/** Injection token of the application's ErrorStatusTable (provided in AppModule). */
export const ERROR_STATUSES = Symbol('ERROR_STATUSES');
