import { HttpException, HttpStatus } from '@nestjs/common';
import { EntityNotFoundError, QueryFailedError } from 'typeorm';
import { DomainError, type ErrorStatusTable } from './domain-error';
import { driverCodeOf } from './driver-code';

export interface ClassifiedError {
  status: number;
  message: string;
  /** True for failures we did not anticipate: logged with the request id, message hidden. */
  unexpected: boolean;
  /**
   * Stable code of the failure for logs and alerts: a DomainError's own (`team.not_found`), else
   * `db_unavailable`, `db_23505`, `http_404`… Logged with the request, never sent in the body.
   */
  errorCode?: string;
  /** The driver's own code (`23505`, `ECONNREFUSED`), logged next to `errorCode`. */
  driverCode?: string;
  /** Seconds a client should wait before retrying (the `Retry-After` header). */
  retryAfter?: number;
}

/** Seconds a client is asked to wait when the database is unreachable (failover takes about a second). */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** SQLSTATEs of a lost or refused connection: 08xxx, admin/crash shutdown, "cannot connect now", too many connections. */
const PG_OUTAGE = /^(?:08...|57P01|57P02|57P03|53300)$/;
/** Socket-level codes of the `pg` driver's connection to PostgreSQL. */
const NET_OUTAGE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Messages of `pg` and `pg-pool` (and TypeORM) that carry no code but mean the database is out of reach. */
const OUTAGE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Cannot use a pool after calling end/i,
  /Client was closed and is not queryable/i,
  /Driver not Connected/i,
];

/** True when the error means PostgreSQL cannot be reached right now (lost, refused, failed over, pool exhausted). */
export function isDatabaseOutage(error: unknown): boolean {
  const code = driverCodeOf(error);
  if (code && (PG_OUTAGE.test(code) || NET_OUTAGE.has(code))) return true;
  const messages = [error, (error as { driverError?: unknown })?.driverError, (error as { cause?: unknown })?.cause]
    .filter((e): e is Error => e instanceof Error)
    .map((e) => e.message);
  return messages.some((message) => OUTAGE_MESSAGES.some((pattern) => pattern.test(message)));
}

/** PostgreSQL SQLSTATEs that are the client's fault, and how they answer. */
const PG_ERRORS: Record<string, { status: number; message: string }> = {
  '23505': { status: HttpStatus.CONFLICT, message: 'A resource with the same unique value already exists' },
  '23503': { status: HttpStatus.CONFLICT, message: 'The resource is referenced by, or refers to, a resource that does not exist' },
  '23514': { status: HttpStatus.BAD_REQUEST, message: 'A value is outside the allowed range' },
  '22001': { status: HttpStatus.BAD_REQUEST, message: 'A value is too long' },
  '22003': { status: HttpStatus.BAD_REQUEST, message: 'A number is out of range' },
  '22007': { status: HttpStatus.BAD_REQUEST, message: 'A date or time is malformed' },
  '22008': { status: HttpStatus.BAD_REQUEST, message: 'A date or time is out of range' },
  '22P02': { status: HttpStatus.BAD_REQUEST, message: 'A value has an invalid format' },
  '40001': { status: HttpStatus.CONFLICT, message: 'A concurrent change conflicted with this request; retry it' },
  '40P01': { status: HttpStatus.CONFLICT, message: 'A concurrent change conflicted with this request; retry it' },
};

/** Errors raised by the body parser before a route runs (they carry `type` and `status`). */
interface BodyParserError extends Error {
  type: string;
  status: number;
  expose?: boolean;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return error instanceof Error && typeof (error as BodyParserError).type === 'string' && typeof (error as BodyParserError).status === 'number';
}

/** Maps any thrown value to the status and message of the error envelope; `statuses` maps DomainError codes. */
export function classifyError(error: unknown, statuses: ErrorStatusTable = {}): ClassifiedError {
  if (error instanceof DomainError) {
    const status = Object.hasOwn(statuses, error.code) ? statuses[error.code] : undefined;
    // A code without a status is a bug of ours (the table is checked by the compiler, so rare): a 500.
    if (status === undefined) return { status: 500, message: 'Internal server error', unexpected: true, errorCode: error.code };
    return { status, message: error.message, unexpected: false, errorCode: error.code };
  }
  const classified = classifyOnly(error);
  const driverCode = classified.errorCode?.startsWith('http_') ? undefined : driverCodeOf(error);
  return driverCode ? { ...classified, driverCode } : classified;
}

function classifyOnly(error: unknown): ClassifiedError {
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return { status, message: httpExceptionMessage(error), unexpected: false, errorCode: `http_${status}` };
  }
  if (isBodyParserError(error) && error.status >= 400 && error.status < 500) {
    switch (error.type) {
      case 'entity.parse.failed':
        return { status: 400, message: 'The request body is not valid JSON', unexpected: false, errorCode: 'body_invalid_json' };
      case 'entity.too.large':
        return { status: 413, message: `The request body is larger than the limit of ${error.limit} bytes`, unexpected: false, errorCode: 'body_too_large' };
      default:
        return {
          status: error.status,
          message: error.expose ? error.message : 'The request body could not be read',
          unexpected: false,
          errorCode: 'body_unreadable',
        };
    }
  }
  if (isDatabaseOutage(error)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      message: 'The database is unreachable; retry shortly',
      unexpected: false,
      errorCode: 'db_unavailable',
      retryAfter: OUTAGE_RETRY_AFTER_SECONDS,
    };
  }
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: string } | undefined)?.code;
    const known = code ? PG_ERRORS[code] : undefined;
    if (known) return { ...known, unexpected: false, errorCode: `db_${code}` };
  }
  if (error instanceof EntityNotFoundError) {
    return { status: 404, message: 'Not found', unexpected: false, errorCode: 'not_found' };
  }
  return { status: 500, message: 'Internal server error', unexpected: true, errorCode: error instanceof QueryFailedError ? 'db_error' : 'internal' };
}

function httpExceptionMessage(error: HttpException): string {
  const body = error.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return error.message;
}
