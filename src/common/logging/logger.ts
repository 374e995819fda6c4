import { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../../config/env.schema';
import { safeErrorSerializer } from './safe-error';

/** Log lines are written once this many bytes are waiting, */
const LOG_BATCH_BYTES = 4096;
/** or after this long (the empty batches of an idle process are zero-byte writes). */
const LOG_FLUSH_MS = 100;

/** JSON logs on stdout. Secrets are redacted wherever a request or header object is logged. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'quire' },
    timestamp: pino.stdTimeFunctions.isoTime,
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
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
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
