import { BadRequestException, NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { classifyError } from '../../src/common/errors/classify-error';

const pgError = (code: string) => new QueryFailedError('SELECT 1', [], Object.assign(new Error('pg'), { code }));

describe('classifyError', () => {
  it('keeps HTTP exceptions and joins validation messages', () => {
    expect(classifyError(new NotFoundException('Space x not found'))).toEqual({
      status: 404,
      message: 'Space x not found',
      unexpected: false,
      errorCode: 'http_404',
    });
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
    expect(classifyError(new Error('secret detail'))).toEqual({ status: 500, message: 'Internal server error', unexpected: true, errorCode: 'internal' });
    expect(classifyError(pgError('XX000'))).toMatchObject({ status: 500, unexpected: true });
  });

  it.each([
    ['57P01 admin_shutdown', pgError('57P01')],
    ['57P03 cannot_connect_now', pgError('57P03')],
    ['08006 connection failure', pgError('08006')],
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })],
    ['ECONNRESET inside AggregateError', new AggregateError([Object.assign(new Error('reset'), { code: 'ECONNRESET' })], 'x')],
    ['Connection terminated', new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly'))],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
  ])('answers a database outage (%s) with 503 and Retry-After', (_name, error) => {
    expect(classifyError(error)).toMatchObject({ status: 503, errorCode: 'db_unavailable', retryAfter: 2, unexpected: false });
  });

  it('carries the driver code of database errors', () => {
    expect(classifyError(pgError('23505'))).toMatchObject({ errorCode: 'db_23505', driverCode: '23505' });
    expect(classifyError(pgError('XX000'))).toMatchObject({ errorCode: 'db_error', driverCode: 'XX000' });
  });
});
