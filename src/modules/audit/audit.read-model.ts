/** One row of `audit_events` as the queries return it (no entity: the table is partitioned and written in SQL). */
export interface AuditEventRow {
  organization_id: string;
  occurred_at: Date;
  id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_label: string | null;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  correlation_id: string | null;
  execution_id: string | null;
  caused_by_event_id: string | null;
  ip: string | null;
  user_agent: string | null;
  schema_version: number;
  payload: Record<string, unknown>;
}

/** An event waiting for the sealer, with its queue row's `ctid` (good for the transaction that read it). */
export interface UnsealedAuditEventRow extends AuditEventRow {
  queue_ctid: string;
}

/** An event with its place in its organization's hash chain (`audit_chain_links`). */
export interface SealedAuditEventRow extends AuditEventRow {
  seq: string;
  prev_hash: string;
  hash: string;
}

/** The filters of a list or an export, all optional and combined with AND. */
export interface AuditEventFilter {
  from?: Date;
  to?: Date;
  action?: string;
  actor?: string;
  target?: string;
}

/** Where a page starts: after this event in the list's order (newest first). */
export interface AuditEventKey {
  occurredAt: string;
  id: string;
}
