import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { raw } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { findJsonShapeProblem, findNulCharacter, JsonShapeLimits } from './json-shape';
import { findUrlTextProblem } from './url-text';

/**
 * Step 0 of the request pipeline, the same for every module: nothing a client sends reaches the
 * guards, the validation pipe or PostgreSQL before it passes these checks, each answered at once
 * with the error envelope (the middlewares hand Nest an HttpException; its filter answers it):
 *
 * 1. the URL: no path segment or query parameter that decodes to NUL or to bytes that are not UTF-8 → 400;
 * 2. a body (any bytes sent) must be `application/json` or `application/*+json`, charset UTF-8 if named → 415;
 * 3. at most BODY_LIMIT bytes after any content encoding → 413 (body-parser reads it, as raw bytes);
 * 4. the bytes must be UTF-8 (a fatal decoder, never U+FFFD) → 400;
 * 5. its shape within INPUT_MAX_KEYS, INPUT_MAX_ARRAY_LENGTH and INPUT_MAX_DEPTH → 400 naming where,
 *    checked by one pass over the text before JSON.parse builds anything, so a hostile body costs
 *    milliseconds, not the 0.2 s V8 spends building an object of 100,000 keys or the seconds
 *    class-transformer and class-validator then spend on it;
 * 6. then JSON → 400, and no NUL in any string or key → 400 naming the field.
 *
 * A request without a body leaves `req.body` undefined, which is how the validation pipe tells a
 * missing body (400 where the body is required) from an empty object.
 */
export function useInputGate(app: NestExpressApplication, config: AppConfig): void {
  // Spec sources take a larger body: their limit follows OPENAPI_MAX_BYTES, not BODY_LIMIT.
  const specBody = raw({ limit: specSourceBodyLimit(config.openapi.maxBytes), type: () => true });
  const body = raw({ limit: config.bodyLimit, type: () => true });
  const parse = parseJsonBody(config.input);
  // One middleware: a request without body bytes (every GET) is done after the URL check.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const problem = urlAndMediaTypeProblem(req);
    if (problem) return next(problem);
    if (!sendsBody(req)) {
      req.body = undefined;
      return next();
    }
    (takesSpecSource(req) ? specBody : body)(req, res, (error?: unknown) => (error ? next(error) : parse(req, res, next)));
  });
}

/** True when the request carries body bytes (a zero Content-Length is no body). */
function sendsBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/**
 * Integrations' public endpoints (`/v1/integrations/{name}/public/…`, and per installation) pass any
 * body, as bytes, to the integration's script: a form or an upload is the script's to read. They
 * keep the URL and size checks; `req.body` stays the raw Buffer.
 */
const RAW_BODY_PATH = /^\/v1\/integrations\/[\w.-]+\/(?:installations\/[^/?]+\/)?public(?:[/?]|$)/;
const takesRawBody = (req: Request) => RAW_BODY_PATH.test(req.originalUrl ?? req.url);

/**
 * The routes that take an OpenAPI specification's text (`createOpenAPISpec` POST `/v1/orgs/{id}/openapi`,
 * `createOrUpdateOpenAPISpecBySlug` PUT `/v1/orgs/{id}/openapi/{specSlug}`): a spec of OPENAPI_MAX_BYTES
 * is allowed as text, which BODY_LIMIT (1 MB by default) would refuse. Every other check stays.
 */
const SPEC_CREATE_PATH = /^\/v1\/orgs\/[^/?]+\/openapi\/?(?:\?|$)/;
const SPEC_PUT_PATH = /^\/v1\/orgs\/[^/?]+\/openapi\/[^/?]+\/?(?:\?|$)/;
function takesSpecSource(req: Request): boolean {
  const url = req.originalUrl ?? req.url;
  return (req.method === 'POST' && SPEC_CREATE_PATH.test(url)) || (req.method === 'PUT' && SPEC_PUT_PATH.test(url));
}

/**
 * Body limit of the spec source routes, in bytes: room for a text of OPENAPI_MAX_BYTES written as a
 * JSON string (every newline or quote escaped doubles its byte, so twice), plus 64 KiB for the rest.
 * The text itself is then held to OPENAPI_MAX_BYTES by the module (400).
 */
export function specSourceBodyLimit(openApiMaxBytes: number): number {
  return 2 * openApiMaxBytes + 64 * 1024;
}

/** Why a Content-Type is not JSON in UTF-8, or undefined when it is. */
function mediaTypeProblem(header: string | undefined): string | undefined {
  if (!header) return 'A request body needs Content-Type: application/json';
  const [type, ...parameters] = header.split(';');
  if (!JSON_MEDIA_TYPE.test(type.trim().toLowerCase())) return 'The request body must be application/json';
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && !/^"?utf-8"?$/i.test(value.trim())) return 'The request body must be encoded in UTF-8';
  }
  return undefined;
}

/** The URL check (1) and the media type check (2), as the exception to answer with. */
function urlAndMediaTypeProblem(req: Request): BadRequestException | UnsupportedMediaTypeException | undefined {
  const urlProblem = findUrlTextProblem(req.originalUrl ?? req.url);
  if (urlProblem) return new BadRequestException(urlProblem);
  if (sendsBody(req) && !takesRawBody(req)) {
    const typeProblem = mediaTypeProblem(req.headers['content-type']);
    if (typeProblem) return new UnsupportedMediaTypeException(typeProblem);
  }
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJsonBody(limits: JsonShapeLimits) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const bytes: unknown = req.body;
    if (takesRawBody(req) && Buffer.isBuffer(bytes)) return next();
    if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
      req.body = undefined;
      return next();
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return next(new BadRequestException('The request body is not valid UTF-8'));
    }
    const shapeProblem = findJsonShapeProblem(text, limits);
    if (shapeProblem) return next(new BadRequestException(shapeProblem));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return next(new BadRequestException('The request body is not valid JSON'));
    }
    const nul = text.includes('\\u0000') ? findNulCharacter(body) : undefined;
    if (nul) return next(new BadRequestException(nul));
    req.body = body;
    next();
  };
}
