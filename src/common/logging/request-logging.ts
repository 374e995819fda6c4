import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is a sane token, a new UUID otherwise. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** What pino writes around an object's fields, when nothing (formatter, mixin, hook, multistream) changes a line. */
interface LineParts {
  write(line: string): unknown;
  time(): string;
  /** `{"level":<n>` by level name. */
  opening: Record<string, string>;
  /** The bindings (`,"service":"quire"`). */
  bindings: string;
}

/**
 * One JSON line per request, tagged with its request id. Only the method, path and id of the
 * request are logged, so no header (and no token) ever reaches a log line. `/health/*` is not logged.
 *
 * The line has pino-http's shape (`req.{id,method,path}`, `res.statusCode`, `responseTime`,
 * `msg: 'request completed'`), written by hand: pino-http built a child logger and several
 * closures per request, which a profile of the hot path showed (docs/scaling.md). It goes through
 * a child logger without the redaction paths: the line holds none of the redacted fields, and
 * checking for them cost more than writing it. The line is put together here, in pino's order and
 * with its time and bindings, and handed to the logger's stream: pino's generic serializer of the
 * nested objects cost more than the rest of the line (a unit test keeps the two byte for byte equal).
 */
export class RequestLog {
  private readonly lines: Logger;
  private readonly parts: LineParts | undefined;

  constructor(logger: Logger) {
    this.lines = logger.child({}, { redact: [] });
    this.parts = linePartsOf(this.lines);
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
    const path = query >= 0 ? url.slice(0, query) : url;
    const message = completed ? 'request completed' : 'request aborted';
    const parts = this.parts;
    if (parts) {
      parts.write(
        `${parts.opening[level]}${parts.time()}${parts.bindings},"req":{"id":${JSON.stringify(id)},"method":${JSON.stringify(req.method)},"path":${JSON.stringify(path)}}` +
          `,"res":{"statusCode":${status}},"responseTime":${Math.round(milliseconds)}${errorCode ? `,"errorCode":${JSON.stringify(errorCode)}` : ''},"msg":"${message}"}\n`,
      );
      return;
    }
    const line: Record<string, unknown> = { req: { id, method: req.method, path }, res: { statusCode: status }, responseTime: Math.round(milliseconds) };
    if (errorCode) line.errorCode = errorCode;
    this.lines[level](line, message);
  }
}

/** The parts of a plain pino logger's line, or undefined when something would change the line pino writes. */
function linePartsOf(logger: Logger): LineParts | undefined {
  const internals = logger as unknown as Record<symbol, unknown>;
  const { symbols } = pino;
  const stream = internals[symbols.streamSym] as { write(line: string): unknown; [key: symbol]: unknown } | undefined;
  const formatters = internals[symbols.formattersSym] as { log?: unknown } | undefined;
  const hooks = internals[symbols.hooksSym] as { streamWrite?: unknown } | undefined;
  const time = internals[symbols.timeSym] as (() => string) | undefined;
  const opening = internals[symbols.lsCacheSym] as Record<number, string> | undefined;
  if (!stream || !time || !opening || stream[symbols.needsMetadataGsym] || formatters?.log || hooks?.streamWrite || internals[symbols.mixinSym])
    return undefined;
  const serializers = (internals[symbols.serializersSym] ?? {}) as Record<string, unknown>;
  if (['req', 'res', 'responseTime', 'errorCode', 'msg'].some((key) => serializers[key])) return undefined;
  if (
    internals[symbols.messageKeySym] !== 'msg' ||
    internals[symbols.endSym] !== '}\n' ||
    internals[(symbols as unknown as Record<string, symbol>).msgPrefixSym]
  )
    return undefined;
  const values = logger.levels.values;
  return {
    write: (line) => stream.write(line),
    time,
    opening: { info: opening[values.info], error: opening[values.error] },
    bindings: internals[symbols.chindingsSym] as string,
  };
}
