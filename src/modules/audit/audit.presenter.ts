import type { AppConfig } from '../../config/app-config';
import type { AuditEventRow } from './audit.read-model';

export interface AuditEventJson {
  object: 'audit-event';
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: string; id: string; label?: string };
  source: string;
  target: { type: string; id: string; label?: string };
  urls: { location: string };
}

export interface AuditEventDetailsJson extends AuditEventJson {
  executionId?: string;
  correlationId?: string;
  causedByEventId?: string;
  schemaVersion: number;
  payload: Record<string, unknown>;
}

export interface AuditEventActionJson {
  object: 'audit-event-action';
  id: string;
  label: string;
}

/** `AuditEvent`: labels are what they were when the event was recorded. */
export function presentAuditEvent(config: AppConfig, row: AuditEventRow): AuditEventJson {
  return {
    object: 'audit-event',
    id: row.id,
    occurredAt: row.occurred_at.toISOString(),
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, ...(row.actor_label !== null && { label: row.actor_label }) },
    source: row.source,
    target: { type: row.target_type, id: row.target_id, ...(row.target_label !== null && { label: row.target_label }) },
    urls: { location: config.apiUrl(`/v1/orgs/${row.organization_id}/audit-events/${row.id}`) },
  };
}

/** `AuditEventDetails`: the event, the request id (`correlationId`), the route (`executionId`) and the payload (changes, address, user agent). */
export function presentAuditEventDetails(config: AppConfig, row: AuditEventRow): AuditEventDetailsJson {
  return {
    ...presentAuditEvent(config, row),
    ...(row.execution_id !== null && { executionId: row.execution_id }),
    ...(row.correlation_id !== null && { correlationId: row.correlation_id }),
    ...(row.caused_by_event_id !== null && { causedByEventId: row.caused_by_event_id }),
    schemaVersion: row.schema_version,
    payload: row.payload,
  };
}

export function presentAuditEventAction(action: { id: string; label: string }): AuditEventActionJson {
  return { object: 'audit-event-action', id: action.id, label: action.label };
}
