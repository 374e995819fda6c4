import { BadRequestException } from '@nestjs/common';

export type CursorValue = string | number;

/**
 * Opaque keyset cursor: base64url of `{"l": <list>, "k": [<last sort key values>]}`.
 * `l` ties a cursor to the list (and sort) that produced it, so one list's cursor is refused by another.
 */
export function encodeCursor(list: string, key: CursorValue[]): string {
  return Buffer.from(JSON.stringify({ l: list, k: key }), 'utf8').toString('base64url');
}

/** The refusal of every malformed, forged or foreign cursor. */
export function invalidCursor(): BadRequestException {
  return new BadRequestException('page: invalid cursor');
}

/** Longest cursor accepted: a key of a few values is well under 1 KB once encoded. */
const MAX_CURSOR_LENGTH = 4096;

/**
 * A cursor is data from the client, decoded and checked before any of it reaches SQL: the list
 * that made it, the number of values, and each value a finite number or a string of at most 256
 * characters with no NUL and no lone surrogate (PostgreSQL refuses both in text: 22021).
 */
export function decodeCursor(page: string, list: string, arity: number): CursorValue[] {
  if (page.length > MAX_CURSOR_LENGTH || !/^[\w-]+$/.test(page)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidCursor();
  const { l, k } = parsed as { l?: unknown; k?: unknown };
  if (l !== list || !Array.isArray(k) || k.length !== arity) throw invalidCursor();
  if (!k.every((value) => (typeof value === 'string' && value.length <= 256 && isPlainText(value)) || (typeof value === 'number' && Number.isFinite(value)))) {
    throw invalidCursor();
  }
  return k as CursorValue[];
}

/** No NUL and no unpaired surrogate. */
function isPlainText(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0) return false;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return false;
  }
  return true;
}

/**
 * True for PostgreSQL's data exceptions (SQLSTATE class 22: a value of the wrong type, out of range,
 * not text). A query that compares a decoded cursor with its sort columns raises one when a
 * well-formed cursor holds a value of another type than the column (a string for a timestamp).
 */
export function isDataException(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code.length === 5) return code.startsWith('22');
    current = (current as { driverError?: unknown }).driverError;
  }
  return false;
}
