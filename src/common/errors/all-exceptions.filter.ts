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
    const { status, message, unexpected, errorCode } = classifyError(error, this.statuses);
    // The request's log line (common/logging/request-logging.ts) carries it as `errorCode`.
    if (errorCode) response.locals.errorCode = errorCode;

    if (unexpected) {
      this.logger.error({ requestId: request.id, method: request.method, path: request.path, err: error }, 'unexpected error');
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    response.status(status).json(errorEnvelope(status, message));
  }
}
