import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is a sane token, a new UUID otherwise. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One JSON line per request, tagged with its request id. Only the method, path and id of the
 * request are logged, so no header (and no token) ever reaches a log line. `/health/*` is not logged.
 *
 * The line has pino-http's shape (`req.{id,method,path}`, `res.statusCode`, `responseTime`,
 * `msg: 'request completed'`), written by hand: pino-http built a child logger and several
 * closures per request, which a profile of the hot path showed (docs/scaling.md). It goes through
 * a child logger without the redaction paths: the line holds none of the redacted fields, and
 * checking for them cost more than writing it.
 */
export class RequestLog {
  private readonly lines: Logger;

  constructor(logger: Logger) {
    this.lines = logger.child({}, { redact: [] });
  }

  /** Whether `url`'s request gets a line at all. */
  wants(url: string): boolean {
    return !url.startsWith('/health') && this.lines.isLevelEnabled('info');
  }

  /** Logs the request once its response closed: completed (error level from 500) or aborted. */
  write(req: IncomingMessage, res: ServerResponse, id: string, milliseconds: number): void {
    const completed = res.writableFinished;
    const status = res.statusCode;
    const level = !completed || status >= 500 ? 'error' : 'info';
    if (!this.lines.isLevelEnabled(level)) return;
    // A DomainError's stable code, left by the exception filter (the body carries only the status).
    const errorCode = (res as { locals?: { errorCode?: string } }).locals?.errorCode;
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const query = url.indexOf('?');
    const line: Record<string, unknown> = {
      req: { id, method: req.method, path: query >= 0 ? url.slice(0, query) : url },
      res: { statusCode: status },
      responseTime: Math.round(milliseconds),
    };
    if (errorCode) line.errorCode = errorCode;
    this.lines[level](line, completed ? 'request completed' : 'request aborted');
  }
}
