import { Injectable } from '@nestjs/common';
import { AUDIT_ACTIONS } from '../../common/audit/audit-catalogue';
import { uuidv7Time } from '../../common/audit/uuid7';
import { decodeCursor, encodeCursor, invalidCursor, isDataException } from '../../common/pagination/cursor';
import type { Page } from '../../common/pagination/paginate';
import { auditError } from './audit.errors';
import type { AuditEventFilter, AuditEventKey, AuditEventRow } from './audit.read-model';
import { AuditRepository } from './audit.repository';
import type { ListAuditEventsDto } from './dto/list-audit-events.dto';

const LIST = 'audit-events:occurredAt:desc';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Rows per query of an export: memory stays this many events whatever the export's length. */
const EXPORT_BATCH = 500;

function filterOf(query: ListAuditEventsDto): AuditEventFilter {
  return {
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    action: query.action,
    actor: query.actor,
    target: query.target,
  };
}

/** The reads of an organization's audit log; the route has checked the caller is one of its admins. */
@Injectable()
export class AuditService {
  constructor(private readonly events: AuditRepository) {}

  async list(organizationId: string, query: ListAuditEventsDto): Promise<Omit<Page<AuditEventRow>, 'count'>> {
    let after: AuditEventKey | null = null;
    if (query.page) {
      const [occurredAt, id] = decodeCursor(query.page, LIST, 2);
      if (typeof occurredAt !== 'string' || typeof id !== 'string' || !UUID.test(id)) throw invalidCursor();
      after = { occurredAt, id };
    }
    let rows: AuditEventRow[];
    try {
      rows = await this.events.page(organizationId, filterOf(query), after, query.limit + 1);
    } catch (error) {
      if (after && isDataException(error)) throw invalidCursor();
      throw error;
    }
    const items = rows.slice(0, query.limit);
    if (rows.length <= query.limit) return { items };
    const last = items[items.length - 1];
    return { items, next: { page: encodeCursor(LIST, [last.occurred_at.toISOString(), last.id]) } };
  }

  /** Every filtered event, newest first, read in keyset batches: constant memory for any length. */
  async *export(organizationId: string, query: ListAuditEventsDto): AsyncGenerator<AuditEventRow> {
    const filter = filterOf(query);
    let after: AuditEventKey | null = null;
    for (;;) {
      const rows = await this.events.page(organizationId, filter, after, EXPORT_BATCH);
      yield* rows;
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1];
      after = { occurredAt: last.occurred_at.toISOString(), id: last.id };
    }
  }

  async get(organizationId: string, id: string): Promise<AuditEventRow> {
    const occurredAt = uuidv7Time(id);
    const row = occurredAt ? await this.events.findOne(organizationId, id, occurredAt) : null;
    if (!row) throw auditError('audit_event.not_found', `Audit event ${id} not found`);
    return row;
  }

  actions(): ReadonlyArray<{ id: string; label: string }> {
    return AUDIT_ACTIONS;
  }
}
