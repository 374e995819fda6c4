import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { RequestLog, requestIdOf } from '../logging/request-logging';
import type { MetricsService } from '../metrics/metrics.service';
import { SecurityHeaders } from './security-headers';

type Middleware = (req: IncomingMessage & { id?: unknown }, res: ServerResponse, next: () => void) => void;

/** What the close listener needs, kept on the response instead of in a closure per request. */
interface Timed {
  [EDGE]?: { id: string; started: number; logged: boolean };
}
const EDGE = Symbol('quire.edge');

/**
 * The first middleware of every request: what every route shares before the guards, in one step
 * and with one listener (it was three middlewares, each with its own listener, plus helmet's dozen):
 *
 * 1. the request id (`X-Request-Id` if sane, else a UUID) on `req.id` and echoed in the response;
 * 2. helmet's security headers, fitted to the transport (`security-headers.ts`);
 * 3. when the response closes: the duration histogram (completed responses) and the request's
 *    log line (completed or aborted; `/health/*` not logged).
 */
export function requestEdge(logger: Logger, metrics: MetricsService): Middleware {
  const log = new RequestLog(logger);
  const headers = new SecurityHeaders();
  function closed(this: ServerResponse & Timed) {
    const edge = this[EDGE];
    if (!edge) return;
    const milliseconds = performance.now() - edge.started;
    const req = this.req;
    if (this.writableFinished) metrics.observe(req, this, milliseconds / 1000);
    if (edge.logged) log.write(req, this, edge.id, milliseconds);
  }
  return (req, res, next) => {
    const id = requestIdOf(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    headers.apply(req, res);
    (res as Timed)[EDGE] = { id, started: performance.now(), logged: log.wants(req.url ?? '') };
    res.on('close', closed);
    next();
  };
}
