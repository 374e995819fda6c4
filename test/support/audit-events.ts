import type { TestApp } from './test-app';

/** An `audit_events` row as the tests read it (snake_case columns). */
export interface AuditEventRow {
  id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  correlation_id: string | null;
  ip: string | null;
  payload: Record<string, unknown>;
}

/** The organization's recorded events, oldest first, `where` an extra SQL condition on them ($2… its `values`). */
export function auditEvents(t: TestApp, organizationId: string, where = 'TRUE', values: unknown[] = []): Promise<AuditEventRow[]> {
  return t.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND ${where} ORDER BY occurred_at, id`, [organizationId, ...values]);
}
