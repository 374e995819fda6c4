import { HttpException } from '@nestjs/common';
import { classifyError } from '../../src/common/errors/classify-error';
import { DomainError } from '../../src/common/errors/domain-error';
import { domainError, ERROR_STATUS, ErrorCode } from '../../src/modules/error-codes';

describe('stable error codes', () => {
  const entries = Object.entries(ERROR_STATUS) as [ErrorCode, number][];

  it('names every code `<module>.<snake_case>` and maps it to a client status', () => {
    expect(entries.length).toBeGreaterThan(20);
    for (const [code, status] of entries) {
      expect(code).toMatch(/^[a-z]+\.[a-z]+(_[a-z]+)*$/);
      expect([400, 403, 404, 409, 422]).toContain(status);
    }
  });

  it('keeps the statuses a caller relies on: not found 404, forbidden 403, state conflicts 409', () => {
    for (const [code, status] of entries) {
      if (code.endsWith('.not_found')) expect(status).toBe(404);
      if (code.endsWith('_forbidden') || code.endsWith('.forbidden')) expect(status).toBe(403);
    }
    expect(ERROR_STATUS['member.last_admin']).toBe(409);
    expect(ERROR_STATUS['team.unknown_members']).toBe(400);
  });

  it('builds a DomainError whose status comes from the one table, not from the throw site', () => {
    const error = domainError('team.not_found', 'Team t1 not found');
    expect(error).toBeInstanceOf(DomainError);
    expect(error).not.toBeInstanceOf(HttpException);
    expect(error).toMatchObject({ code: 'team.not_found', status: 404, message: 'Team t1 not found' });
  });

  it('classifies a DomainError as its status and message, with the code for the log line only', () => {
    expect(classifyError(domainError('member.last_admin', 'Cannot demote the last admin'))).toEqual({
      status: 409,
      message: 'Cannot demote the last admin',
      unexpected: false,
      errorCode: 'member.last_admin',
    });
  });

  it('accepts only declared codes (checked by tsc: a code missing from ERROR_STATUS, or an unknown one, does not compile)', () => {
    // @ts-expect-error: not a declared code
    expect(() => domainError('team.vanished', 'x').status).not.toThrow();
  });
});
