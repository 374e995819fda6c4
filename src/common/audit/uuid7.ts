import { randomFillSync } from 'node:crypto';

/** Random bytes for 256 ids, refilled when used up: one call into the crypto library per 256 events, not one per event. */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by creation time
 * and a keyset over `(occurred_at, id)` walks in the order events happened. Fifteen lines instead of
 * a dependency (npm `uuid` ≥ 10 has v7, but nothing else here needs it).
 */
export function uuidv7(now = Date.now()): string {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = POOL.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  let ms = now;
  for (let index = 5; index >= 0; index--) {
    bytes[index] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70; // version 7
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The time a UUIDv7 carries (its first 48 bits, in ms); null for another version or a malformed id. */
export function uuidv7Time(id: string): Date | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return null;
  return new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16));
}
