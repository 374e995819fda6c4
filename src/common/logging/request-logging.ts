import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { safeErrorSerializer } from './safe-error';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * One JSON line per request, tagged with a request id: the caller's `X-Request-Id` when it is
 * a sane token, a new UUID otherwise; echoed back in the response header. Only the method,
 * path and id of the request are logged, so no header (and no token) ever reaches a log line.
 */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url?.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: safeErrorSerializer,
    },
    // A DomainError's stable code, left by the exception filter (the body carries only the status).
    customProps: (_req, res) => {
      const errorCode = (res as { locals?: { errorCode?: string } }).locals?.errorCode;
      return errorCode ? { errorCode } : {};
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => req.url?.startsWith('/health') ?? false },
    quietReqLogger: true,
  });
}
