import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { REPLAYED_HEADER } from '../idempotency/idempotency.interceptor';
import { bindAuditScope, closeCallerAuditScope, openCallerAuditScope, type AuditScope } from './audit.context';
import type { AuditedRoute } from './audit-catalogue';
import { requestAuditScope } from './audit-request';
import { AuditCommitSubscriber } from './audit.subscriber';

/**
 * Opens the audit scope of a request whose route the space unit of work records (`unitOfWork` in the
 * catalogue), as the last guard of the route: a request refused by an earlier guard opens none. The
 * scope is keyed by the request's caller (`request.user`, which the guard makes an object of the
 * request's own, the handler's `@CurrentUser()`); the unit of work, given that caller, binds it to its
 * transaction, whose commit hook records the route's event (audit.context.ts). Nothing wraps the
 * handler: no interceptor, no async context (decision 0075). AUDIT_STRICT adds the audit interceptor's
 * check after the handler (a 500 for a success without its event); without it, a success without its
 * event logs an error when the response is sent, and the event is recorded in a transaction of its own.
 */
@Injectable()
export class AuditScopeGuard implements CanActivate {
  private readonly logger = new Logger('Audit');
  private readonly routes = new WeakMap<object, { route: AuditedRoute; operationId: string }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriber: AuditCommitSubscriber,
  ) {}

  declare(handler: object, route: AuditedRoute, operationId: string): void {
    this.routes.set(handler, { route, operationId });
  }

  canActivate(context: ExecutionContext): boolean {
    const declared = this.routes.get(context.getHandler());
    const request = context.switchToHttp().getRequest<Request>();
    const user = request.user;
    if (!declared || !user || context.getType() !== 'http') return true;
    // The scope's key must be this request's own object: an authenticator that handed one user object to
    // concurrent requests (a cache) would otherwise give each the other's scope. A shallow copy, same class.
    const caller = Object.assign(Object.create(Object.getPrototypeOf(user) as object) as typeof user, user);
    request.user = caller;
    const scope = requestAuditScope(request, declared.route, declared.operationId);
    openCallerAuditScope(caller, scope);
    const response = context.switchToHttp().getResponse<Response>();
    response.once('finish', () => {
      closeCallerAuditScope(caller);
      this.finished(scope, response);
    });
    return true;
  }

  private finished(scope: AuditScope, response: Response): void {
    // Not a success, or a retry answered from its Idempotency-Key: the handler changed nothing.
    if (response.statusCode < 200 || response.statusCode >= 300 || response.getHeader(REPLAYED_HEADER) !== undefined) return;
    if (scope.recordedId) {
      if (scope.targetPending) this.logger.warn({ msg: 'audit event without a target id', eventId: scope.recordedId, operationId: scope.operationId });
      return;
    }
    this.logger.error({ msg: 'write without its audit event', operationId: scope.operationId });
    this.dataSource
      .transaction((em) => {
        bindAuditScope(em.queryRunner, scope);
        return this.subscriber.recordRoute(scope, em);
      })
      .catch((error: unknown) =>
        this.logger.error({ msg: 'could not record an audit event apart from its write', operationId: scope.operationId, err: error }),
      );
  }
}
