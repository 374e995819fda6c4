import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { classifyError } from './classify-error';
import { ERROR_STATUSES, type ErrorStatusTable } from './domain-error';
import { errorEnvelope } from './error-envelope';

/** The one place failures become HTTP answers: every error leaves as the error envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  /** `statuses`: the application's code → status table for DomainErrors (src/error-codes.ts). */
  constructor(@Optional() @Inject(ERROR_STATUSES) private readonly statuses: ErrorStatusTable = {}) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const { status, message, unexpected, errorCode, driverCode, retryAfter } = classifyError(error, this.statuses);
    // The request's log line (common/logging/request-logging.ts) carries it as `errorCode`.
    if (errorCode) response.locals.errorCode = errorCode;

    if (unexpected || status >= 500) {
      // The route template, never the URL (its query string may hold values); `err` goes through
      // the logger's safe serializer (no SQL, parameters or body).
      const route = (request.route as { path?: string } | undefined)?.path ?? null;
      const fields = { requestId: request.id, method: request.method, route, status, errorCode, driverCode, err: error };
      if (unexpected) this.logger.error({ ...fields, msg: 'unexpected error' });
      else this.logger.warn({ ...fields, msg: 'request failed' });
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    if (retryAfter !== undefined) response.setHeader('Retry-After', String(retryAfter));
    // Every 401 carries a Bearer challenge (RFC 6750); the bearer guard sets a more precise one.
    if (status === 401 && !response.getHeader('WWW-Authenticate')) response.setHeader('WWW-Authenticate', 'Bearer realm="quire"');
    response.status(status).json(errorEnvelope(status, message));
  }
}
