import type { ValidationPipe } from '@nestjs/common';
import { isURL } from 'class-validator';
import { ResolveUrlDto, URL_OPTIONS } from './resolve-url.dto';

/** URLs already found valid (a pure answer: readers' renderers resolve the same few URLs over and over). */
const validUrls = new Set<string>();
const VALID_URL_MEMO = 10_000;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

function isUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  if (validUrls.has(value)) return true;
  if (!isURL(value, URL_OPTIONS)) return false;
  if (validUrls.size >= VALID_URL_MEMO) validUrls.clear();
  validUrls.add(value);
  return true;
}

/** The body when it is plainly valid (only fields of the DTO, each of its type); undefined for anything else. */
function plainlyValid(body: unknown): ResolveUrlDto | undefined {
  if (!isPlainObject(body)) return undefined;
  for (const key in body) if (key !== 'url' && key !== 'redirectOnError' && key !== 'visitor') return undefined;
  const { url, redirectOnError, visitor } = body;
  if (!isUrl(url)) return undefined;
  if (redirectOnError !== undefined && typeof redirectOnError !== 'boolean') return undefined;
  if (visitor !== undefined) {
    if (!isPlainObject(visitor)) return undefined;
    for (const key in visitor) if (key !== 'type' && key !== 'jwtToken' && key !== 'unsignedClaims') return undefined;
    const { type, jwtToken, unsignedClaims } = visitor;
    if (type !== undefined && type !== 'human' && type !== 'agent') return undefined;
    if (jwtToken !== undefined && (typeof jwtToken !== 'string' || jwtToken.length > 8192)) return undefined;
    if (unsignedClaims !== undefined && !isPlainObject(unsignedClaims)) return undefined;
  }
  return body as unknown as ResolveUrlDto;
}

/**
 * The body of `resolvePublishedContentByUrl`, read on the hot path of every page a reader loads:
 * a body the DTO's rules plainly accept is taken as it is (class-validator's metadata walk was the
 * largest part of the route's own time); anything else goes through the global validation pipe with
 * the DTO, so refusals (and their messages) are exactly those of every other route.
 */
export async function readResolveBody(body: unknown, pipe: ValidationPipe): Promise<ResolveUrlDto> {
  return plainlyValid(body) ?? ((await pipe.transform(body, { type: 'body', metatype: ResolveUrlDto, data: undefined })) as ResolveUrlDto);
}
