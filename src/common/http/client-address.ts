import type { Request } from 'express';

/**
 * `req.ip`, without express's parse of `X-Forwarded-For` when the request has none: express then
 * answers the socket's address whatever TRUST_PROXY names (proxy-addr starts from the socket's), so
 * the parse is skipped where it cannot change the answer (it cost about 3 µs a request).
 */
export function clientAddress(request: Request): string | undefined {
  return request.headers['x-forwarded-for'] ? request.ip : request.socket?.remoteAddress;
}
