import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../../config/env.schema';
import { safeErrorSerializer } from './safe-error';

/** Log lines are written once this many bytes are waiting, */
const LOG_BATCH_BYTES = 4096;
/** or this long after they were written (an idle process has no timer and makes no writes). */
const LOG_FLUSH_MS = 100;

/** JSON logs on stdout. Secrets are redacted wherever a request or header object is logged. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'quire' },
    timestamp: isoTimeOncePerMillisecond(),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'token', '*.token'],
      censor: '[redacted]',
    },
    // Errors are logged by type, code and stack; database errors without their SQL, parameters or quoted values.
    serializers: { err: safeErrorSerializer },
  };
  // stdout written asynchronously and in batches: lines collect until 4 KiB (about 20 request lines)
  // or 100 ms have passed, then go out in one write (a write per line or two under load was a
  // hot-path cost: docs/scaling.md). pino writes what is left synchronously when the process exits,
  // by process.exit() (the graceful shutdown) or an uncaught exception; a SIGKILL loses at most 100 ms.
  return pino(options, destination ?? new BatchedDestination(pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES }), LOG_FLUSH_MS));
}

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: under load several lines
 * share a millisecond, and formatting a `Date` was a visible part of each request's line.
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== at) {
      at = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * A sonic-boom destination whose partial batch is flushed `flushMs` after lines arrive, by a timer that
 * runs only while written bytes are still waiting. sonic-boom's own `periodicFlush` flushes on a fixed
 * clock, and its flush of an empty buffer is a zero-byte write through libuv's thread pool: an idle
 * process spent about 7 ms of CPU a second on them (docs/scaling.md, "The floor of the stack"). The
 * bytes handed to the stream are counted against those its `write` events report, so a batch that a
 * write in flight kept back is flushed at the next tick, and an idle process has no timer at all. The
 * exit handling (pino writes what is left synchronously) stays on the sonic-boom stream itself.
 */
export class BatchedDestination implements DestinationStream {
  /** Bytes given to the stream and not yet reported written. */
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: SonicBoom,
    private readonly flushMs: number,
  ) {
    out.on('write', (bytes: number) => {
      this.waiting = Math.max(0, this.waiting - bytes);
    });
  }

  write(line: string): boolean {
    this.waiting += Buffer.byteLength(line);
    const ok = this.out.write(line);
    this.arm();
    return ok;
  }

  /** pino's `logger.flush()`. */
  flush(callback?: (error?: Error) => void): void {
    this.out.flush(callback);
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(this.tick, this.flushMs);
    this.timer.unref();
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    if ((this.out as { destroyed?: boolean }).destroyed || this.waiting === 0) return;
    // Does nothing while a write is in flight; what that write leaves is taken at the next tick.
    this.out.flush();
    this.arm();
  };
}

/** Nest's per-module and per-route start-up lines: useful when debugging, noise otherwise. */
const STARTUP_CHATTER = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/** Routes Nest's own log calls into pino, so every line has the same JSON shape. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }

  /** Nest appends the context name as the last string parameter; a stack may precede it. */
  private write(requested: pino.Level, message: unknown, params: unknown[]) {
    const context = typeof params.at(-1) === 'string' ? (params.pop() as string) : undefined;
    const level = context && STARTUP_CHATTER.has(context) && requested === 'info' ? 'debug' : requested;
    const stack = params.find((param): param is string => typeof param === 'string');
    const fields: Record<string, unknown> = { context };
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (message && typeof message === 'object') {
      const { msg, ...rest } = message as Record<string, unknown>;
      this.logger[level]({ ...fields, ...rest }, typeof msg === 'string' ? msg : undefined);
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
