import { randomFillSync } from 'node:crypto';

/** Random bytes for 256 ids, refilled when used up: one call into the crypto library per 256 events, not one per event. */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;

/** The millisecond of the last id and its 12-bit counter (RFC 9562 §6.2, method 1), for ids in this process's order. */
let lastMs = -1;
let counter = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then random bits, so ids sort by
 * creation time and a keyset over `(occurred_at, id)` walks in the order events happened, also within one
 * millisecond of one process: the counter starts at a random value below 2048 each millisecond and counts
 * up, so at least 2,048 ids of one millisecond keep their order (past 4095, the rest are random). The time
 * bits are always `now`'s: an id's time is its event's `occurred_at`. A few lines instead of a dependency
 * (npm `uuid` ≥ 10 has v7, but nothing else here needs it).
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
  if (now !== lastMs) {
    lastMs = now;
    counter = ((bytes[6] << 8) | bytes[7]) & 0x7ff;
  } else if (counter < 0xfff) {
    counter += 1;
  } else {
    counter = ((bytes[6] << 8) | bytes[7]) & 0xfff;
  }
  bytes[6] = 0x70 | (counter >> 8); // version 7, then the counter's 12 bits
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The time a UUIDv7 carries (its first 48 bits, in ms); null for another version or a malformed id. */
export function uuidv7Time(id: string): Date | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return null;
  return new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16));
}
