import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/**
 * New resource id: a ULID, so ids sort by creation time (keyset pagination on
 * `(created_at, id)` follows insertion order) while staying opaque to clients.
 */
export function newId(): string {
  return next();
}
