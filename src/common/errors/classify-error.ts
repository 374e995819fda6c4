import { HttpException, HttpStatus } from '@nestjs/common';
import { EntityNotFoundError, QueryFailedError } from 'typeorm';
import { DomainError, type ErrorStatusTable } from './domain-error';

export interface ClassifiedError {
  status: number;
  message: string;
  /** True for failures we did not anticipate: logged with the request id, message hidden. */
  unexpected: boolean;
  /** The stable code of a DomainError (`team.not_found`): logged with the request, never sent in the body. */
  errorCode?: string;
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
  if (error instanceof HttpException) {
    return { status: error.getStatus(), message: httpExceptionMessage(error), unexpected: false };
  }
  if (isBodyParserError(error) && error.status >= 400 && error.status < 500) {
    switch (error.type) {
      case 'entity.parse.failed':
        return { status: 400, message: 'The request body is not valid JSON', unexpected: false };
      case 'entity.too.large':
        return { status: 413, message: `The request body is larger than the limit of ${error.limit} bytes`, unexpected: false };
      default:
        return { status: error.status, message: error.expose ? error.message : 'The request body could not be read', unexpected: false };
    }
  }
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: string } | undefined)?.code;
    const known = code ? PG_ERRORS[code] : undefined;
    if (known) return { ...known, unexpected: false };
  }
  if (error instanceof EntityNotFoundError) {
    return { status: 404, message: 'Not found', unexpected: false };
  }
  return { status: 500, message: 'Internal server error', unexpected: true };
}

function httpExceptionMessage(error: HttpException): string {
  const body = error.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return error.message;
}
