import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

type Middleware = (req: IncomingMessage & { id?: unknown }, res: ServerResponse, next: () => void) => void;

/**
 * One JSON line per request, tagged with a request id: the caller's `X-Request-Id` when it is
 * a sane token, a new UUID otherwise; echoed back in the response header. Only the method,
 * path and id of the request are logged, so no header (and no token) ever reaches a log line.
 *
 * The line has pino-http's shape (`req.{id,method,path}`, `res.statusCode`, `responseTime`,
 * `msg: 'request completed'`), written by hand: pino-http built a child logger and several
 * closures per request, which a profile of the hot path showed (docs/scaling.md). `/health/*`
 * is not logged.
 */
export function requestLogging(logger: Logger): Middleware {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const url = req.url ?? '';
    if (url.startsWith('/health') || !logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = performance.now();
    res.once('close', () => {
      const completed = res.writableFinished;
      const status = res.statusCode;
      const level = !completed || status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      // A DomainError's stable code, left by the exception filter (the body carries only the status).
      const errorCode = (res as { locals?: { errorCode?: string } }).locals?.errorCode;
      const query = url.indexOf('?');
      const line: Record<string, unknown> = {
        req: { id, method: req.method, path: query >= 0 ? url.slice(0, query) : url },
        res: { statusCode: status },
        responseTime: Math.round(performance.now() - started),
      };
      if (errorCode) line.errorCode = errorCode;
      logger[level](line, completed ? 'request completed' : 'request aborted');
    });
    next();
  };
}
