import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuditEventFilter, AuditEventKey, AuditEventRow } from './audit.read-model';

/** Every query of the audit log's reads (writes: common/audit/audit-recorder.ts; the chain: audit-chain.repository.ts; partitions). */
@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A page of events, newest first, after `after` (exclusive). The filters are equalities on the
   * leading columns of an index ending in `(occurred_at, id)`, so a page is one index range scan
   * whatever the log's size; no count (the public `List` makes it optional, and it would cost the log's size).
   */
  async page(organizationId: string, filter: AuditEventFilter, after: AuditEventKey | null, limit: number): Promise<AuditEventRow[]> {
    const where = ['organization_id = $1'];
    const values: unknown[] = [organizationId];
    const add = (clause: (n: string) => string, value: unknown) => {
      values.push(value);
      where.push(clause(`$${values.length}`));
    };
    if (filter.from) add((n) => `occurred_at >= ${n}`, filter.from);
    if (filter.to) add((n) => `occurred_at <= ${n}`, filter.to);
    if (filter.action) add((n) => `action = ${n}`, filter.action);
    if (filter.actor) add((n) => `actor_id = ${n}`, filter.actor);
    if (filter.target) add((n) => `target_id = ${n}`, filter.target);
    if (after) {
      values.push(after.occurredAt, after.id);
      where.push(`(occurred_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
    }
    values.push(limit);
    return this.dataSource.query(`SELECT * FROM audit_events WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT $${values.length}`, values);
  }

  async findOne(organizationId: string, id: string): Promise<AuditEventRow | null> {
    const rows: AuditEventRow[] = await this.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND id = $2`, [organizationId, id]);
    return rows[0] ?? null;
  }

  /** Creates the monthly partitions from `from` to `until` that are missing; returns how many it created. */
  async ensurePartitions(from: Date, until: Date): Promise<number> {
    const [row] = (await this.dataSource.query(`SELECT audit_ensure_partitions($1, $2) AS created`, [from, until])) as { created: number }[];
    return row.created;
  }

  /** Detaches and drops the partitions that end before `cutoff`; returns the end of the newest dropped (null: none). */
  async dropPartitionsBefore(cutoff: Date): Promise<Date | null> {
    const [row] = (await this.dataSource.query(`SELECT audit_drop_partitions_before($1) AS dropped`, [cutoff])) as { dropped: Date | null }[];
    return row.dropped;
  }
}
