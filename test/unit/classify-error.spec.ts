import { BadRequestException, NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { classifyError } from '../../src/common/errors/classify-error';

const pgError = (code: string) => new QueryFailedError('SELECT 1', [], Object.assign(new Error('pg'), { code }));

describe('classifyError', () => {
  it('keeps HTTP exceptions and joins validation messages', () => {
    expect(classifyError(new NotFoundException('Space x not found'))).toEqual({ status: 404, message: 'Space x not found', unexpected: false });
    expect(classifyError(new BadRequestException(['a: bad', 'b: worse']))).toMatchObject({ status: 400, message: 'a: bad; b: worse' });
  });

  it.each([
    ['23505', 409],
    ['23503', 409],
    ['22P02', 400],
    ['22001', 400],
    ['40001', 409],
  ])('maps PostgreSQL %s to %i', (code, status) => {
    expect(classifyError(pgError(code))).toMatchObject({ status, unexpected: false });
  });

  it('maps body-parser failures', () => {
    const tooLarge = Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413, limit: 100 });
    expect(classifyError(tooLarge)).toMatchObject({ status: 413, unexpected: false });
    const malformed = Object.assign(new Error('bad'), { type: 'entity.parse.failed', status: 400 });
    expect(classifyError(malformed)).toMatchObject({ status: 400, message: 'The request body is not valid JSON' });
  });

  it('hides unknown failures behind a 500 without details', () => {
    expect(classifyError(new Error('secret detail'))).toEqual({ status: 500, message: 'Internal server error', unexpected: true });
    expect(classifyError(pgError('XX000'))).toMatchObject({ status: 500, unexpected: true });
  });
});
