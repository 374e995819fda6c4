import { BadRequestException } from '@nestjs/common';

export type CursorValue = string | number;

/**
 * Opaque keyset cursor: base64url of `{"l": <list>, "k": [<last sort key values>]}`.
 * `l` ties a cursor to the list (and sort) that produced it, so one list's cursor is refused by another.
 */
export function encodeCursor(list: string, key: CursorValue[]): string {
  return Buffer.from(JSON.stringify({ l: list, k: key }), 'utf8').toString('base64url');
}

export function decodeCursor(page: string, list: string, arity: number): CursorValue[] {
  const invalid = () => new BadRequestException('page: is not a valid page cursor');
  if (!/^[\w-]+$/.test(page)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { l, k } = (parsed ?? {}) as { l?: unknown; k?: unknown };
  if (l !== list || !Array.isArray(k) || k.length !== arity) throw invalid();
  if (!k.every((value) => (typeof value === 'string' && value.length <= 256) || (typeof value === 'number' && Number.isFinite(value)))) {
    throw invalid();
  }
  return k as CursorValue[];
}
