// No import of its own: the logger (and through it main.ts's start-up checks) reads driver codes without loading
// NestJS or TypeORM.

/** The code the driver put on an error or on its cause (`QueryFailedError.driverError`, AggregateError members). */
export function driverCodeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    const next =
      (current as { driverError?: unknown }).driverError ?? (current as { errors?: unknown[] }).errors?.[0] ?? (current as { cause?: unknown }).cause;
    current = next;
  }
  return undefined;
}
