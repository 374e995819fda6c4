import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from '@nestjs/common';
import type { DataSource, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import { join } from 'node:path';
import { CATALOGUE_END, CATALOGUE_START, renderAuditCatalogue } from '../../scripts/audit-catalogue';
import { actionsOf, AUDIT_ACTIONS, AUDITED_ROUTES, type AuditedRoute } from '../../src/common/audit/audit-catalogue';
import { auditScopeOf, auditScopeOfCaller, bindAuditScope, type AuditScope } from '../../src/common/audit/audit.context';
import { AuditScopeGuard } from '../../src/common/audit/audit.guard';
import { AuditCommitSubscriber } from '../../src/common/audit/audit.subscriber';
import { summarizeChanges } from '../../src/common/audit/audit-changes';
import { beforeRow } from '../../src/common/audit/audit.subscriber';
import type { AuditRecorder } from '../../src/common/audit/audit-recorder';
import { uuidv7 } from '../../src/common/audit/uuid7';

/** Table cells without the padding prettier adds. */
const normalize = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => (/^\|[\s|:-]+\|$/.test(line) ? '|---|' : line.replace(/\s*\|\s*/g, '|')))
    .join('\n');

describe('audit catalogue', () => {
  it('docs/modules/audit.md lists exactly the actions and routes of the code (npm run -s audit:catalogue)', () => {
    const page = readFileSync(join(__dirname, '../../docs/modules/audit.md'), 'utf8');
    const section = page.slice(page.indexOf(CATALOGUE_START) + CATALOGUE_START.length, page.indexOf(CATALOGUE_END));
    expect(normalize(section)).toBe(normalize(renderAuditCatalogue()));
  });

  it('names actions resource.verb, each with a label', () => {
    for (const { id, label } of AUDIT_ACTIONS) {
      expect(id).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(label.length).toBeGreaterThan(3);
    }
    for (const route of Object.values(AUDITED_ROUTES))
      if ('action' in route) for (const action of actionsOf(route)) expect(AUDIT_ACTIONS.map((a) => a.id)).toContain(action);
  });
});

describe('audit changes', () => {
  it('names every field; copies before/after only for short non-secret scalars', () => {
    const changes = summarizeChanges(
      { title: 'New', visibility: 'public', token: 'abc', clientSecret: 's', body: { markdown: 'x' }, emoji: null, long: 'x'.repeat(201) },
      { title: 'Old', visibility: 'private', token: 'old' },
    );
    expect(changes).toEqual([
      { field: 'title', before: 'Old', after: 'New' },
      { field: 'visibility', before: 'private', after: 'public' },
      { field: 'token' },
      { field: 'clientSecret' },
      { field: 'body' },
      { field: 'emoji', after: null },
      { field: 'long' },
    ]);
  });

  it('records nothing for a body that is not an object', () => {
    expect(summarizeChanges(undefined)).toEqual([]);
    expect(summarizeChanges([1, 2])).toEqual([]);
  });
});

describe('uuidv7', () => {
  it('is a version 7 UUID whose first 48 bits are the time, so later ids sort after', () => {
    const first = uuidv7(1_700_000_000_000);
    const later = uuidv7(1_700_000_000_001);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.replace(/-/g, '').slice(0, 12)).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
    expect(later > first).toBe(true);
  });

  it('counts up within one millisecond, so ids of one process keep their order there too', () => {
    const at = 1_700_000_000_500;
    const ids = Array.from({ length: 2048 }, () => uuidv7(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id.replace(/-/g, '').slice(0, 12)).toBe(at.toString(16).padStart(12, '0'));
  });
});

describe('audit before rows', () => {
  const row = (table: string, fields: Record<string, unknown>) => ({ table, row: fields });

  it('takes the loaded row that is the target (id, or a foreign key naming it) and holds the most body fields', () => {
    const loaded = [
      row('users', { id: 'u1', displayName: 'Ada' }),
      row('memberships', { organizationId: 'o1', userId: 'u1', role: 'read' }),
      row('organizations', { id: 'o1', title: 'Org', role: 'x' }),
    ];
    expect(beforeRow(loaded, 'u1', { role: 'edit' })).toEqual({ organizationId: 'o1', userId: 'u1', role: 'read' });
    expect(beforeRow(loaded, 'o1', { title: 'New' })).toEqual({ id: 'o1', title: 'Org', role: 'x' });
    expect(beforeRow(loaded, 'nobody', { role: 'edit' })).toBeUndefined();
    expect(beforeRow(loaded, 'u1', { unknownField: 1 })).toBeUndefined();
  });

  it('a value sent unchanged has no before', () => {
    expect(summarizeChanges({ title: 'Same', visibility: 'public' }, { title: 'Same', visibility: 'private' })).toEqual([
      { field: 'title', after: 'Same' },
      { field: 'visibility', before: 'private', after: 'public' },
    ]);
  });
});

describe('audit guard (routes the unit of work records)', () => {
  const route = AUDITED_ROUTES.updateSpaceById as AuditedRoute;
  const handler = () => undefined;
  const guard = new AuditScopeGuard({} as DataSource, {} as AuditCommitSubscriber);
  guard.declare(handler, route, 'updateSpaceById');
  const contextOf = (request: object) =>
    ({
      getHandler: () => handler,
      getType: () => 'http',
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => new EventEmitter() }),
    }) as unknown as ExecutionContext;

  it('keys each request’s scope by a caller of its own, even when two requests share one user object', () => {
    class Caller {
      constructor(
        readonly id: string,
        readonly displayName: string,
      ) {}
    }
    const shared = new Caller('user-1', 'Ada');
    const first = { user: shared, headers: { 'user-agent': 'one' }, id: 'request-1', socket: { remoteAddress: '127.0.0.1' } };
    const second = { user: shared, headers: { 'user-agent': 'two' }, id: 'request-2', socket: { remoteAddress: '127.0.0.1' } };
    expect(guard.canActivate(contextOf(first))).toBe(true);
    expect(guard.canActivate(contextOf(second))).toBe(true);
    // Each handler's `@CurrentUser()` is its request's own copy, of the same class, carrying its own scope.
    expect(first.user).not.toBe(second.user);
    expect(first.user).toBeInstanceOf(Caller);
    expect(first.user).toEqual(shared);
    expect(auditScopeOfCaller(first.user)).toMatchObject({ correlationId: 'request-1', userAgent: 'one', operationId: 'updateSpaceById' });
    expect(auditScopeOfCaller(second.user)).toMatchObject({ correlationId: 'request-2', userAgent: 'two' });
    expect(auditScopeOfCaller(shared)).toBeUndefined();
  });

  it('closes the scope once the response is sent', () => {
    const response = Object.assign(new EventEmitter(), { statusCode: 200, getHeader: () => undefined });
    const request = { user: { id: 'user-3', displayName: 'Grace' }, headers: {}, id: 'request-5', socket: { remoteAddress: '127.0.0.1' } };
    const context = { ...contextOf(request), switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }) } as unknown as ExecutionContext;
    expect(guard.canActivate(context)).toBe(true);
    const scope = auditScopeOfCaller(request.user);
    expect(scope).toMatchObject({ correlationId: 'request-5' });
    scope!.recordedId = 'event-1';
    response.emit('finish');
    expect(auditScopeOfCaller(request.user)).toBeUndefined();
  });

  it('opens nothing for a route it was not declared on, or without a caller', () => {
    const request = { user: { id: 'user-2' }, headers: {}, id: 'request-3' };
    const other = { ...contextOf(request), getHandler: () => () => undefined } as unknown as ExecutionContext;
    expect(guard.canActivate(other)).toBe(true);
    expect(auditScopeOfCaller(request.user)).toBeUndefined();
    const anonymous = { headers: {}, id: 'request-4' };
    expect(guard.canActivate(contextOf(anonymous))).toBe(true);
    expect(anonymous).not.toHaveProperty('user');
  });
});

describe('audit commit hook: a transaction’s binding to its scope', () => {
  const subscriber = new AuditCommitSubscriber({} as DataSource, {} as AuditRecorder);
  const scope = { correlationId: 'request-6' } as AuditScope;

  it('outlives a savepoint’s commit or rollback and ends with the transaction', () => {
    const runner = { isTransactionActive: true } as QueryRunner;
    bindAuditScope(runner, scope);
    subscriber.afterTransactionCommit({ queryRunner: runner } as TransactionCommitEvent);
    subscriber.afterTransactionRollback({ queryRunner: runner } as TransactionRollbackEvent);
    expect(auditScopeOf(runner)).toBe(scope);
    (runner as { isTransactionActive: boolean }).isTransactionActive = false;
    subscriber.afterTransactionCommit({ queryRunner: runner } as TransactionCommitEvent);
    expect(auditScopeOf(runner)).toBeUndefined();
  });

  it('ends with a rollback of the transaction', () => {
    const runner = { isTransactionActive: false } as QueryRunner;
    bindAuditScope(runner, scope);
    subscriber.afterTransactionRollback({ queryRunner: runner } as TransactionRollbackEvent);
    expect(auditScopeOf(runner)).toBeUndefined();
  });
});
