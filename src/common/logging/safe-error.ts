import { driverCodeOf } from '../errors/driver-code';

/** Fields of a database error that name schema objects, never values. */
const SAFE_DB_FIELDS = ['severity', 'routine', 'table', 'column', 'constraint', 'schema', 'dataType'] as const;

interface SafeError {
  type: string;
  message?: string;
  code?: string;
  stack?: string;
  [field: string]: unknown;
}

/**
 * pino's `err` serializer, without secrets. The standard one copies every enumerable property, and
 * TypeORM's QueryFailedError carries the SQL `query` and its `parameters` (e-mails, markdown,
 * tokens); PostgreSQL's own messages and `detail` quote values too ("Key (email)=(…) already
 * exists", `invalid input syntax for type uuid: "…"`). So a database error is logged by its code
 * and the names of the objects involved only, and any other error by type, message, code and stack.
 */
export function safeErrorSerializer(error: unknown, depth = 0): SafeError | unknown {
  if (!(error instanceof Error)) return error;
  const type = error.constructor?.name ?? 'Error';
  const code = driverCodeOf(error);
  const database = isDatabaseError(error);
  const safe: SafeError = { type };
  if (code) safe.code = code;
  if (database) {
    const driver = ((error as { driverError?: unknown }).driverError ?? error) as Record<string, unknown>;
    for (const field of SAFE_DB_FIELDS) if (typeof driver[field] === 'string') safe[field] = driver[field];
  } else {
    safe.message = error.message;
  }
  // The first line of a stack repeats the message; keep only the frames of a database error.
  if (error.stack) safe.stack = database ? error.stack.split('\n').slice(1).join('\n') : error.stack;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && depth < 3) safe.cause = safeErrorSerializer(cause, depth + 1);
  return safe;
}

/** A TypeORM query failure or a PostgreSQL error object (it has a SQLSTATE and a severity). */
function isDatabaseError(error: Error): boolean {
  if ('driverError' in error || 'query' in error || 'parameters' in error) return true;
  const candidate = error as { code?: unknown; severity?: unknown };
  return typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code) && typeof candidate.severity === 'string';
}
