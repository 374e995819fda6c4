import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { from, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { auditScope, type AuditActor, type AuditScope, type AuditSource } from './audit.context';
import type { AuditedRoute } from './audit-catalogue';
import { AuditCommitSubscriber } from './audit.subscriber';
import { uuidv7Time } from './uuid7';

interface Principals {
  scriptPrincipal?: { installationId: string; integrationName: string };
  sitePrincipal?: { siteId: string };
}

function callerOf(request: Request & Principals): { actor: AuditActor; source: AuditSource } {
  if (request.scriptPrincipal) {
    const script = request.scriptPrincipal;
    return { actor: { type: 'installation', id: script.installationId, label: script.integrationName }, source: 'integration' };
  }
  if (request.sitePrincipal) return { actor: { type: 'system', id: `site:${request.sitePrincipal.siteId}`, label: 'Site API token' }, source: 'api' };
  const user = request.user;
  return user
    ? { actor: { type: 'user', id: user.id, label: user.displayName }, source: 'api' }
    : { actor: { type: 'system', id: 'anonymous' }, source: 'api' };
}

/**
 * Bound to every route the catalogue says writes (audit.routes.ts), after the guards: a refused
 * request never reaches it. Runs the handler in the request's audit scope, so the first transaction
 * it commits records the route's event (audit.subscriber.ts). A write that committed no transaction
 * (a single statement in autocommit) has its event recorded right after, in a transaction of its own;
 * a create whose row the commit hook did not see gets its target id from the response.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Audit');
  private readonly routes = new WeakMap<object, { route: AuditedRoute; operationId: string }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriber: AuditCommitSubscriber,
    private readonly config: AppConfig,
  ) {}

  declare(handler: object, route: AuditedRoute, operationId: string): void {
    this.routes.set(handler, { route, operationId });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declared = this.routes.get(context.getHandler());
    if (!declared || context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request & Principals>();
    const forwarded = request.headers['user-agent'];
    const scope: AuditScope = {
      request,
      route: declared.route,
      operationId: declared.operationId,
      ...callerOf(request),
      correlationId: String(request.id),
      ip: request.ip ?? null,
      userAgent: typeof forwarded === 'string' ? forwarded : null,
    };
    const handled = auditScope.observe(scope, () => next.handle());
    return from(this.finish(scope, handled));
  }

  private async finish(scope: AuditScope, handled: Observable<unknown>): Promise<unknown> {
    const body = await lastValue(handled);
    if (!scope.recordedId) {
      await auditScope.run(scope, () => this.dataSource.transaction((em) => this.subscriber.recordRoute(scope, em)));
    }
    if (!scope.recordedId) {
      // The organization could not be known: the catalogue or the service must say it (audit-coverage test).
      if (this.config.auditStrict) throw new Error(`${scope.operationId} succeeded without recording its audit event`);
      this.logger.error({ msg: 'write without its audit event', operationId: scope.operationId });
    }
    if (scope.recordedId && scope.targetPending) await this.completeTarget(scope.recordedId, body);
    return body;
  }

  /** The id (and label) of a created resource the commit hook could not see, from the response; before the event is sealed. */
  private async completeTarget(eventId: string, body: unknown): Promise<void> {
    const row = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const id = typeof row.id === 'string' ? row.id : typeof row.slug === 'string' ? row.slug : null;
    if (!id) {
      this.logger.warn({ msg: 'audit event without a target id', eventId });
      return;
    }
    const label = [row.title, row.name, row.label].find((value) => typeof value === 'string') as string | undefined;
    // The id's time is the event's `occurred_at` (uuid7.ts): one partition, whose unsealed events are few.
    await this.dataSource.query(
      `UPDATE audit_events SET target_id = $2, target_label = coalesce(target_label, $3) WHERE occurred_at = $4 AND id = $1 AND seq IS NULL`,
      [eventId, id, label?.slice(0, 256) ?? null, uuidv7Time(eventId)],
    );
  }
}

function lastValue(source: Observable<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let value: unknown;
    source.subscribe({ next: (v) => (value = v), error: reject, complete: () => resolve(value) });
  });
}
