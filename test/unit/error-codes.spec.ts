import { HttpException } from '@nestjs/common';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { classifyError } from '../../src/common/errors/classify-error';
import { DomainError } from '../../src/common/errors/domain-error';
import { ERROR_STATUS, ErrorCode } from '../../src/error-codes';
import { memberError } from '../../src/modules/members/member.errors';
import { teamError } from '../../src/modules/teams/team.errors';

const MODULES = join(__dirname, '..', '..', 'src', 'modules');

function errorsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? errorsFiles(join(dir, entry.name)) : entry.name.endsWith('.errors.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every table of codes and statuses a module declares (`export const TEAM_ERRORS = { … }` in a `*.errors.ts`). */
function moduleTables(): { name: string; table: Record<string, number> }[] {
  return errorsFiles(MODULES).flatMap((file) =>
    Object.entries(require(file) as Record<string, unknown>)
      .filter(([name]) => /^[A-Z_]+_ERRORS$/.test(name))
      .map(([name, table]) => ({ name: `${relative(MODULES, file)}: ${name}`, table: table as Record<string, number> })),
  );
}

describe('stable error codes', () => {
  const entries = Object.entries(ERROR_STATUS) as [ErrorCode, number][];

  it("composes every module's table into ERROR_STATUS, with the module's statuses", () => {
    const tables = moduleTables();
    expect(tables.length).toBeGreaterThanOrEqual(20);
    const left = tables.flatMap(({ name, table }) =>
      Object.entries(table)
        .filter(([code, status]) => (ERROR_STATUS as Record<string, number>)[code] !== status)
        .map(([code]) => `${name} ${code}`),
    );
    expect(left).toEqual([]);
  });

  it('has no code declared by two modules, and none that no module declares', () => {
    const declared = new Map<string, string[]>();
    for (const { name, table } of moduleTables()) for (const code of Object.keys(table)) declared.set(code, [...(declared.get(code) ?? []), name]);
    expect([...declared].filter(([, names]) => names.length > 1)).toEqual([]);
    expect(Object.keys(ERROR_STATUS).filter((code) => !declared.has(code))).toEqual([]);
  });

  it('names every code `<snake_case module>.<snake_case>` and maps it to a client status', () => {
    expect(entries.length).toBeGreaterThan(20);
    for (const [code, status] of entries) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/);
      // 502 is the one upstream status: a service called on the caller's behalf (an integration's script) failed.
      if (status === 502) expect(code).toBe('integration.script_failed');
      else expect([400, 403, 404, 409, 422]).toContain(status);
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

  it("a module's helper builds a DomainError with its code and message, and no HTTP status", () => {
    const error = teamError('team.not_found', 'Team t1 not found');
    expect(error).toBeInstanceOf(DomainError);
    expect(error).not.toBeInstanceOf(HttpException);
    expect(error).toMatchObject({ code: 'team.not_found', message: 'Team t1 not found' });
    expect(error).not.toHaveProperty('status');
  });

  it('classifies a DomainError by the one table: its status and message, with the code for the log line only', () => {
    expect(classifyError(memberError('member.last_admin', 'Cannot demote the last admin'), ERROR_STATUS)).toEqual({
      status: 409,
      message: 'Cannot demote the last admin',
      unexpected: false,
      errorCode: 'member.last_admin',
    });
  });

  it('answers 500 (unexpected, logged) for a code the table does not know', () => {
    expect(classifyError(new DomainError('nobody.declared_this', 'x'), ERROR_STATUS)).toEqual({
      status: 500,
      message: 'Internal server error',
      unexpected: true,
      errorCode: 'nobody.declared_this',
    });
    expect(classifyError(new DomainError('toString', 'x'), ERROR_STATUS)).toMatchObject({ status: 500 });
  });

  it('lets a module throw only its declared codes (checked by tsc, like the table being exhaustive)', () => {
    // @ts-expect-error: not a declared code of the teams module
    expect(teamError('team.vanished', 'x').code).toBe('team.vanished');
    // @ts-expect-error: a members code is thrown through memberError, not teamError
    expect(teamError('member.not_found', 'x')).toBeInstanceOf(DomainError);
  });
});
