import { Injectable } from '@nestjs/common';
import { QueryFailedError, type EntityManager } from 'typeorm';
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
}

const SYSTEM: AuditActor = { type: 'system', id: 'quire', label: 'Quire' };

/**
 * A named prepared statement on the connection of the write's transaction (every write runs it):
 * PostgreSQL parses and plans it once per connection. Unnamed with DATABASE_PREPARED_STATEMENTS=false
 * (PgBouncer in transaction mode), or when `em` has no transaction of its own.
 */
const INSERT = {
  name: 'audit_events_insert',
  text: `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source,
           target_type, target_id, target_label, correlation_id, execution_id, caused_by_event_id, ip, user_agent, payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
};

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
    if (scope?.ip) payload.ip = scope.ip;
    if (scope?.userAgent) payload.userAgent = scope.userAgent.slice(0, 512);
    await this.insert(em, [
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
      scope?.ip ?? null,
      scope?.userAgent?.slice(0, 512) ?? null,
      JSON.stringify(payload),
    ]);
    if (scope && !scope.recordedId) scope.recordedId = id;
    return id;
  }

  private async insert(em: EntityManager, values: unknown[]): Promise<void> {
    const runner = em.queryRunner;
    if (!this.config.databasePreparedStatements || !runner?.isTransactionActive) {
      await em.query(INSERT.text, values);
      return;
    }
    const client = (await runner.connect()) as { query(config: { name: string; text: string; values: unknown[] }): Promise<unknown> };
    try {
      await client.query({ ...INSERT, values });
    } catch (error) {
      throw new QueryFailedError(INSERT.text, values, error as Error);
    }
  }
}
