import { hash } from 'node:crypto';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { RawJson } from './raw-json';

/**
 * express's weak ETag (`etag` package: `W/"<length in hex>-<first 27 base64 characters of the
 * SHA-1>"`), the same value, from one hashing call and without copying a string body into a
 * Buffer first. Installed as the app's `etag` setting (app.setup.ts), so `res.send` uses it too.
 */
export function weakEtag(body: string | Buffer, encoding: BufferEncoding = 'utf8'): string {
  const length = typeof body === 'string' ? Buffer.byteLength(body, encoding) : body.length;
  if (length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  const bytes = typeof body === 'string' && encoding !== 'utf8' ? Buffer.from(body, encoding) : body;
  return `W/"${length.toString(16)}-${hash('sha1', bytes, 'base64').substring(0, 27)}"`;
}

/**
 * Nest's express adapter, with the common answer written directly: a handler's plain object or
 * array, on a request that is not HEAD and is not conditional, before anything set a content type.
 * It writes what `res.json()` writes (the same headers in the same order: Content-Type,
 * Content-Length, ETag, and the same body), as one string, so node sends headers and body in one
 * write; express's `send` re-parses the content type, copies the body into a Buffer for the ETag
 * and looks at the request's freshness, which a profile of the hot path showed (docs/scaling.md).
 * Anything else (HEAD, `If-None-Match`, 204/205/304, a content type already set, JSON settings,
 * streams, errors) goes to the adapter's own `reply`, unchanged.
 */
export class JsonReplyAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body instanceof RawJson) {
      // express's `send` of a string: the same headers (ETag and freshness included) as `res.json()` of its value.
      if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
      if (!response.hasHeader('Content-Type')) response.setHeader('Content-Type', 'application/json; charset=utf-8');
      return response.send(body.json);
    }
    if (!isPlainJson(body)) return super.reply(response, body, statusCode);
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    const req = response.req;
    const status = response.statusCode;
    const app = response.app;
    if (
      req.method === 'HEAD' ||
      req.headers['if-none-match'] !== undefined ||
      req.headers['if-modified-since'] !== undefined ||
      status === 204 ||
      status === 205 ||
      status === 304 ||
      response.hasHeader('Content-Type') ||
      response.hasHeader('ETag') ||
      response.hasHeader('Transfer-Encoding') ||
      app.get('json replacer') !== undefined ||
      app.get('json spaces') !== undefined ||
      app.get('json escape')
    ) {
      return super.reply(response, body, undefined);
    }
    const json = JSON.stringify(body);
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', String(Buffer.byteLength(json)));
    const etag = app.get('etag fn') as ((body: string, encoding: BufferEncoding) => string | undefined) | undefined;
    const tag = typeof etag === 'function' ? etag(json, 'utf8') : undefined;
    if (tag) response.setHeader('ETag', tag);
    response.end(json);
    return response;
  }
}

/** A body `res.json()` would serialize as it stands: a plain object or an array. */
function isPlainJson(body: unknown): body is object {
  if (body === null || typeof body !== 'object') return false;
  const prototype = Object.getPrototypeOf(body) as unknown;
  return prototype === Object.prototype || prototype === null || Array.isArray(body);
}
