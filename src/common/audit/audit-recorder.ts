import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { auditScope, type AuditActor, type AuditChange, type AuditSource, type AuditTarget } from './audit.context';
import { uuidv7 } from './uuid7';

export interface AuditRecord {
  organizationId: string;
  action: string;
  target: AuditTarget;
  changes?: AuditChange[];
  /** Action-specific details beyond `changes`; small, never a secret. */
  details?: Record<string, unknown>;
  /** Defaults: the request's caller and source; outside a request, the system. */
  actor?: AuditActor;
  source?: AuditSource;
  causedByEventId?: string;
  executionId?: string;
  /** The caller's address and user agent when no request scope gives them (a refused sign-in). */
  ip?: string | null;
  userAgent?: string | null;
}

const SYSTEM: AuditActor = { type: 'system', id: 'quire', label: 'Quire' };

/**
 * The one way to record an audit event: inserted with the transaction the change runs in, so the
 * event commits or rolls back with it. Inside a request it takes the caller, source, request id,
 * address and user agent from the request's audit scope, and marks the request recorded (its
 * commit hook then records nothing more). The event is unsealed; the sealer chains it.
 */
@Injectable()
export class AuditRecorder {
  constructor(private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.auditEnabled;
  }

  async record(em: EntityManager, record: AuditRecord): Promise<string | null> {
    if (!this.config.auditEnabled) return null;
    const scope = auditScope.getStore();
    const now = Date.now();
    const id = uuidv7(now);
    const actor = record.actor ?? scope?.actor ?? SYSTEM;
    const payload: Record<string, unknown> = { ...record.details };
    if (record.changes && record.changes.length > 0) payload.changes = record.changes;
    const ip = scope?.ip ?? record.ip ?? null;
    const userAgent = (scope?.userAgent ?? record.userAgent)?.slice(0, 512) ?? null;
    if (ip) payload.ip = ip;
    if (userAgent) payload.userAgent = userAgent;
    await em.query(
      `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source,
         target_type, target_id, target_label, correlation_id, execution_id, caused_by_event_id, ip, user_agent, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        record.organizationId,
        new Date(now),
        id,
        record.action,
        actor.type,
        actor.id,
        actor.label ?? null,
        record.source ?? scope?.source ?? 'api',
        record.target.type,
        record.target.id,
        record.target.label ?? null,
        scope?.correlationId ?? null,
        record.executionId ?? scope?.operationId ?? null,
        record.causedByEventId ?? null,
        ip,
        userAgent,
        JSON.stringify(payload),
      ],
    );
    if (scope && !scope.recordedId) scope.recordedId = id;
    return id;
  }
}
