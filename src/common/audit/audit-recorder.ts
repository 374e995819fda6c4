import { Injectable } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import type { EntityManager, QueryRunner } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { auditScopeOf, type AuditActor, type AuditChange, type AuditSource, type AuditTarget } from './audit.context';
import { uuidv7, uuidv7Time } from './uuid7';

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

const INSERT = `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source,
  target_type, target_id, target_label, correlation_id, execution_id, caused_by_event_id, ip, user_agent, payload)`;
/** The casts of the insert's values, in its columns' order, for the literal form sent with the COMMIT. */
/** Every event waits in `audit_unsealed` for the sealer (audit-chain.ts), which chains it in `audit_chain_links`. */
const QUEUE = `INSERT INTO audit_unsealed (organization_id, occurred_at, id)`;
const CASTS = ['', '::timestamptz', '::uuid', '', '', '', '', '', '', '', '', '', '', '::uuid', '', '', '::jsonb'];

/** An event `e` the sealer has not chained yet (a sealed event is never changed). */
const UNSEALED = `EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.organization_id = e.organization_id AND u.occurred_at = e.occurred_at AND u.id = e.id)`;

/** A recorded event's target, by the event's primary key ($1–$3), while unsealed ($4 the id, $5 the label if it has none). */
export const SET_TARGET = `UPDATE audit_events e SET (target_id, target_label) = ($4, coalesce(target_label, $5))
  WHERE organization_id = $1 AND occurred_at = $2::timestamptz AND id = $3::uuid AND ${UNSEALED}`;

/** `statement` with each `$n` replaced by the literal of `values[n - 1]` (the casts written after them stay). */
function literalStatement(statement: string, values: unknown[]): string {
  return statement.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1], ''));
}

/** The inserts waiting for their transaction's COMMIT, per query runner (see `atCommit`). */
const waiting = new WeakMap<QueryRunner, string[]>();

/**
 * Sends `statement` in the same message as the transaction's COMMIT (`INSERT …; COMMIT`, one simple
 * query): one round trip fewer per write, and a statement that fails aborts the COMMIT with it, so the
 * transaction rolls back whole. A ROLLBACK drops it; a savepoint's rollback does not (it was recorded
 * in the outer transaction). The runner's `query` is wrapped until its COMMIT or ROLLBACK.
 */
function atCommit(runner: QueryRunner, statement: string): void {
  const statements = waiting.get(runner);
  if (statements) {
    statements.push(statement);
    return;
  }
  const pending = [statement];
  waiting.set(runner, pending);
  const own = Object.prototype.hasOwnProperty.call(runner, 'query');
  const query = runner.query as (text: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;
  const restore = () => {
    waiting.delete(runner);
    if (own) runner.query = query as QueryRunner['query'];
    else delete (runner as Partial<Pick<QueryRunner, 'query'>>).query;
  };
  runner.query = ((text: string, parameters?: unknown[], structured?: boolean) => {
    if (text === 'COMMIT') {
      restore();
      return query.call(runner, `${pending.join(';\n')};\nCOMMIT`, parameters, structured);
    }
    if (text === 'ROLLBACK') restore();
    return query.call(runner, text, parameters, structured);
  }) as QueryRunner['query'];
}

function literal(value: unknown, cast: string): string {
  if (value === null || value === undefined) return 'NULL';
  return `${escapeLiteral(value instanceof Date ? value.toISOString() : String(value))}${cast}`;
}

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
    const scope = auditScopeOf(em.queryRunner);
    const now = Date.now();
    const id = uuidv7(now);
    const actor = record.actor ?? scope?.actor ?? SYSTEM;
    const payload: Record<string, unknown> = { ...record.details };
    if (record.changes && record.changes.length > 0) payload.changes = record.changes;
    const ip = scope?.ip ?? record.ip ?? null;
    const userAgent = (scope?.userAgent ?? record.userAgent)?.slice(0, 512) ?? null;
    if (ip) payload.ip = ip;
    if (userAgent) payload.userAgent = userAgent;
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
      ip,
      userAgent,
      JSON.stringify(payload),
    ]);
    if (scope && !scope.recordedId) {
      scope.recordedId = id;
      scope.recordedOrganizationId = record.organizationId;
    }
    return id;
  }

  /**
   * In the outermost transaction of `em`, with the COMMIT (`atCommit`); elsewhere (a savepoint, no
   * transaction) at once. Either way the event commits or rolls back with the change.
   */
  private async insert(em: EntityManager, values: unknown[]): Promise<void> {
    const runner = em.queryRunner as (QueryRunner & { transactionDepth?: number }) | undefined;
    if (runner?.isTransactionActive && runner.transactionDepth === 1) {
      const literals = values.map((value, index) => literal(value, CASTS[index]));
      atCommit(runner, `${INSERT} VALUES (${literals.join(', ')})`);
      atCommit(runner, `${QUEUE} VALUES (${literals.slice(0, 3).join(', ')})`);
      return;
    }
    await em.query(
      `WITH event AS (${INSERT} VALUES (${values.map((_, index) => `$${index + 1}${CASTS[index]}`).join(', ')}) RETURNING organization_id, occurred_at, id)
       ${QUEUE} SELECT organization_id, occurred_at, id FROM event`,
      values,
    );
  }

  /**
   * Names the target of an event this request recorded (a created resource's id, known only from the
   * response), before the event is sealed. Behind the event's own insert when that still waits for its
   * transaction's COMMIT; at once otherwise. The event is found by its primary key: its organization, its
   * id's time (its `occurred_at`: uuid7.ts), its id; one partition, one index entry, whatever the log's size.
   */
  async setTarget(em: EntityManager, event: { organizationId: string; id: string }, targetId: string, label: string | null): Promise<void> {
    const values = [event.organizationId, uuidv7Time(event.id), event.id, targetId, label];
    const runner = em.queryRunner;
    const pending = runner ? waiting.get(runner) : undefined;
    if (pending) {
      pending.push(literalStatement(SET_TARGET, values));
      return;
    }
    await em.query(SET_TARGET, values);
  }
}
