import { BadRequestException } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '../../src/common/pagination/cursor';

describe('page cursor', () => {
  it('round-trips the sort key of its list', () => {
    const cursor = encodeCursor('orgs', ['2026-01-01T00:00:00.000Z', 'abc']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'orgs', 2)).toEqual(['2026-01-01T00:00:00.000Z', 'abc']);
  });

  it.each([
    ['not base64url', '%%%'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['another list', encodeCursor('members', ['a', 'b'])],
    ['the wrong arity', encodeCursor('orgs', ['a'])],
    ['a non-scalar key', Buffer.from(JSON.stringify({ l: 'orgs', k: [{}, 'b'] })).toString('base64url')],
    ['null', Buffer.from('null').toString('base64url')],
  ])('refuses %s with 400', (_case, page) => {
    expect(() => decodeCursor(page, 'orgs', 2)).toThrow(BadRequestException);
  });
});
