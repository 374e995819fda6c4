import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * Marks a script's call back to this API (added by the runtime's outbound service on the way out,
 * after the script's own headers, so a script cannot set or read it), so that the rate limits treat
 * it as the installation's call and not as a call from the server's own address (127.0.0.1 or the
 * replica's), which would otherwise share one budget and one failed-authentication lockout with
 * every local client. The value is `<expiry ms>.<HMAC-SHA256>` under a key of this process: a
 * replica recognises its own calls back (a call back that the load balancer sends to another
 * replica is an ordinary call from that address).
 */
export const SCRIPT_CALL_HEADER = 'x-quire-script-call';

const KEY = randomBytes(32);
/** A marker lives as long as a call may (the longest script call is far shorter). */
const TTL_MS = 10 * 60 * 1000;

const sign = (expires: string) => createHmac('sha256', KEY).update(expires).digest('base64url');

/** The header value for a call leaving the sandbox now. */
export function scriptCallMarker(now = Date.now()): string {
  const expires = String(now + TTL_MS);
  return `${expires}.${sign(expires)}`;
}

/** Whether `request` carries a valid marker (one HMAC, only for requests that carry the header). */
export function isScriptCall(request: Request): boolean {
  const value = request.headers[SCRIPT_CALL_HEADER];
  if (typeof value !== 'string') return false;
  const dot = value.indexOf('.');
  if (dot <= 0) return false;
  const expires = value.slice(0, dot);
  if (!/^\d{1,15}$/.test(expires) || Number(expires) < Date.now()) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(expires));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
