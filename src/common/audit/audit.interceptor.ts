import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { from, Observable } from 'rxjs';
import { DataSource, type EntityManager, type QueryRunner, type ReplicationMode } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { auditScope, auditScopeOfCaller, type AuditScope } from './audit.context';
import type { AuditedRoute } from './audit-catalogue';
import { AuditRecorder } from './audit-recorder';
import { requestAuditScope } from './audit-request';
import { AuditCommitSubscriber } from './audit.subscriber';

/**
 * Bound to every route the catalogue says writes (audit.routes.ts), after the guards: a refused
 * request never reaches it. Runs the handler in the request's audit scope, so the first transaction
 * it commits records the route's event (audit.subscriber.ts). A route whose writes are single
 * statements (no transaction of their own) is marked `transaction` in the catalogue: its handler runs
 * in one transaction that every query of the request joins, and its event commits with it. A route
 * that committed no transaction and is not so marked would get its event apart from its write: under
 * AUDIT_STRICT that is a 500 (every e2e test of a writing route checks it), else an error logged and
 * the event recorded in a transaction of its own. A create whose row the commit hook did not see gets
 * its target id from the response, before the event commits or is sealed.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor, OnModuleInit {
  private readonly logger = new Logger('Audit');
  private readonly routes = new WeakMap<object, { route: AuditedRoute; operationId: string }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriber: AuditCommitSubscriber,
    private readonly recorder: AuditRecorder,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    joinRequestTransactions(this.dataSource);
  }

  declare(handler: object, route: AuditedRoute, operationId: string): void {
    this.routes.set(handler, { route, operationId });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declared = this.routes.get(context.getHandler());
    if (!declared || context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    // A route the unit of work records: bound here only under AUDIT_STRICT, to check what it recorded.
    if (declared.route.unitOfWork) return from(this.checkUnitOfWork(request, next));
    return from(this.finish(requestAuditScope(request, declared.route, declared.operationId), next));
  }

  /**
   * AUDIT_STRICT on a route the unit of work records (audit.guard.ts opened its scope): the handler as
   * it runs in production, then a 500 if it succeeded without its event, or without the target's id
   * (only what the transaction saw can name it: no response is read for these routes).
   */
  private async checkUnitOfWork(request: Request, next: CallHandler): Promise<unknown> {
    const body = await lastValue(next.handle());
    const scope = request.user ? auditScopeOfCaller(request.user) : undefined;
    if (!scope?.recordedId) {
      throw new Error(
        `${scope?.operationId ?? request.path} succeeded without recording its audit event: its change was not written by the space unit of work (declare it without \`unitOfWork\`)`,
      );
    }
    if (scope.targetPending)
      throw new Error(`${scope.operationId} recorded its event without the target's id: the unit of work's transaction did not insert it through TypeORM`);
    return body;
  }

  /** The handler's answer, the handler run in the request's audit scope (its Observable subscribed inside it). */
  private handled(scope: AuditScope, next: CallHandler): Promise<unknown> {
    return auditScope.run(scope, () => lastValue(next.handle()));
  }

  private async finish(scope: AuditScope, next: CallHandler): Promise<unknown> {
    if (scope.route.transaction) return this.finishInTransaction(scope, next);
    await this.readBefore(scope, this.dataSource.manager);
    const body = await this.handled(scope, next);
    if (!scope.recordedId) {
      const apart = `${scope.operationId} committed no transaction: its audit event would be recorded apart from its write (mark the route \`transaction\` in the catalogue)`;
      if (this.config.auditStrict) throw new Error(apart);
      this.logger.error({ msg: 'audit event recorded apart from its write', operationId: scope.operationId });
      await auditScope.run(scope, () => this.dataSource.transaction((em) => this.subscriber.recordRoute(scope, em)));
    }
    this.requireRecorded(scope);
    if (scope.targetPending) await this.completeTarget(scope, body, this.dataSource.manager);
    return body;
  }

  /** The handler, then its event, in one transaction that every query of the request joins; rolled back if either fails. */
  private async finishInTransaction(scope: AuditScope, next: CallHandler): Promise<unknown> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await runner.connect();
      await runner.startTransaction();
      scope.transaction = runner;
      await this.readBefore(scope, runner.manager);
      const body = await this.handled(scope, next);
      if (!scope.recordedId) await auditScope.run(scope, () => this.subscriber.recordRoute(scope, runner.manager));
      this.requireRecorded(scope);
      if (scope.targetPending) await this.completeTarget(scope, body, runner.manager);
      scope.transaction = undefined;
      await runner.commitTransaction();
      return body;
    } catch (error) {
      scope.transaction = undefined;
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The target's row as it is before the handler, for routes whose code loads it by SQL (`table` in the catalogue). */
  private async readBefore(scope: AuditScope, em: EntityManager): Promise<void> {
    const { table, id } = scope.route;
    const targetId = table && !id.startsWith('+') ? scope.request.params?.[id] : undefined;
    if (!table || typeof targetId !== 'string') return;
    const rows: Record<string, unknown>[] = await em.query(`SELECT * FROM "${table.replace(/"/g, '')}" WHERE id = $1`, [targetId]);
    if (rows[0]) (scope.loaded ??= []).unshift({ table, row: camelCased(rows[0]) });
  }

  private requireRecorded(scope: AuditScope): void {
    if (scope.recordedId) return;
    // The organization could not be known: the catalogue or the service must say it (audit-coverage test).
    if (this.config.auditStrict) throw new Error(`${scope.operationId} succeeded without recording its audit event`);
    this.logger.error({ msg: 'write without its audit event', operationId: scope.operationId });
  }

  /** The id (and label) of a created resource the commit hook could not see, from the response; before the event is sealed. */
  private async completeTarget(scope: AuditScope, body: unknown, em: EntityManager): Promise<void> {
    const { recordedId: eventId, recordedOrganizationId: organizationId } = scope;
    if (!eventId || !organizationId) return;
    const row = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const id = typeof row.id === 'string' ? row.id : typeof row.slug === 'string' ? row.slug : null;
    if (!id) {
      // Neither a row the request inserted through TypeORM nor its response names the target: the catalogue must.
      if (this.config.auditStrict) throw new Error(`${scope.operationId} recorded its audit event without the target's id`);
      this.logger.warn({ msg: 'audit event without a target id', eventId });
      return;
    }
    const label = [row.title, row.name, row.label].find((value) => typeof value === 'string') as string | undefined;
    await this.recorder.setTarget(em, { organizationId, id: eventId }, id, label?.slice(0, 256) ?? null);
  }
}

function camelCased(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), value]));
}

const JOINS = Symbol('quire.audit.joinsRequestTransactions');
const releaseNothing = (): Promise<void> => Promise.resolve();

/**
 * Makes the data source hand a request's own transaction (`AuditScope.transaction`, while open) to
 * whatever in the request asks it for a primary query runner: repositories, `dataSource.query`,
 * `dataSource.transaction` (then a savepoint). Releasing it is the interceptor's, not theirs.
 * Everything outside such a request is untouched.
 */
export function joinRequestTransactions(dataSource: DataSource): void {
  const marked = dataSource as DataSource & { [JOINS]?: true };
  if (marked[JOINS]) return;
  marked[JOINS] = true;
  const own = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode: ReplicationMode = 'master'): QueryRunner => {
    // Reads too (`slave`): a replica would not see the request's writes before they commit.
    const runner = auditScope.getStore()?.transaction;
    if (!runner || runner.isReleased) return own(mode);
    return new Proxy(runner, { get: (target, property) => (property === 'release' ? releaseNothing : Reflect.get(target, property)) });
  };
}

function lastValue(source: Observable<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let value: unknown;
    source.subscribe({ next: (v) => (value = v), error: reject, complete: () => resolve(value) });
  });
}
