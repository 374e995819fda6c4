import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { queryPrepared, queryPreparedGeneric } from '../../database/prepared-query';
import type { AuditEventFilter, AuditEventKey, AuditEventRow } from './audit.read-model';

/** Every query of the audit log's reads (writes: common/audit/audit-recorder.ts; the chain: audit-chain.repository.ts; partitions). */
@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A page of events, newest first, after `after` (exclusive). Without a filter, a range scan of the primary key
   * `(organization_id, occurred_at, id)`; with one, a range scan of the chain links' index whose leading columns are
   * its equalities and which ends in `(occurred_at, id)`, beside the queue of events not sealed yet: whatever the
   * log's size; no count (the public `List` makes it optional, and it would cost the log's size).
   *
   * Planning, not the scan, is what grows with the log: PostgreSQL plans every monthly partition a
   * query may touch. So the page is read from the two months up to its upper bound (the cursor's time,
   * `to`, or now) first, and from the older months only when those did not fill it: a page of a busy
   * log plans two partitions (plus the empty ones kept ahead) whatever the retention holds.
   */
  async page(organizationId: string, filter: AuditEventFilter, after: AuditEventKey | null, limit: number): Promise<AuditEventRow[]> {
    const upper = [after ? new Date(after.occurredAt) : null, filter.to ?? null].filter((d): d is Date => d !== null && !Number.isNaN(d.getTime()));
    const top = upper.length > 0 ? new Date(Math.min(...upper.map((d) => d.getTime()))) : new Date();
    const window = new Date(Date.UTC(top.getUTCFullYear(), top.getUTCMonth() - 1, 1));
    if (filter.from && filter.from >= window) return this.pageWithin(organizationId, filter, after, limit, {});
    const recent = await this.pageWithin(organizationId, filter, after, limit, { from: window });
    if (recent.length >= limit) return recent;
    return [...recent, ...(await this.pageWithin(organizationId, filter, after, limit - recent.length, { before: window }))];
  }

  private pageWithin(
    organizationId: string,
    filter: AuditEventFilter,
    after: AuditEventKey | null,
    limit: number,
    months: { from?: Date; before?: Date },
  ): Promise<AuditEventRow[]> {
    const values: unknown[] = [organizationId];
    // The clauses present, a letter each, name the statement: one named statement per combination, planned once per
    // connection, its partitions then pruned as it runs (`occurred_at` bounds are parameters), instead of planning
    // every monthly partition on every page. A clause is a template over the alias of the table it bounds (`@`).
    let shape = '';
    const times: string[] = [];
    const filters: string[] = [];
    const add = (to: string[], tag: string, clause: (n: string) => string, value: unknown) => {
      shape += tag;
      values.push(value);
      to.push(clause(`$${values.length}`));
    };
    if (filter.from) add(times, 'f', (n) => `@.occurred_at >= ${n}`, filter.from);
    if (filter.to) add(times, 't', (n) => `@.occurred_at <= ${n}`, filter.to);
    if (months.from) add(times, 'm', (n) => `@.occurred_at >= ${n}`, months.from);
    if (months.before) add(times, 'b', (n) => `@.occurred_at < ${n}`, months.before);
    if (filter.action) add(filters, 'a', (n) => `@.action = ${n}`, filter.action);
    if (filter.actor) add(filters, 'u', (n) => `@.actor_id = ${n}`, filter.actor);
    if (filter.target) add(filters, 'g', (n) => `@.target_id = ${n}`, filter.target);
    if (after) {
      // The row comparison is the keyset; the plain bound beside it lets PostgreSQL leave out the newer partitions.
      add(times, 'k', (n) => `@.occurred_at <= ${n}::timestamptz`, after.occurredAt);
      values.push(after.id);
      times.push(`(@.occurred_at, @.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
    }
    values.push(limit);
    const limitParam = `$${values.length}`;
    const where = (alias: string, clauses: string[]) => [`${alias}.organization_id = $1`, ...clauses.map((c) => c.replaceAll('@', alias))].join(' AND ');
    const newestFirst = (alias: string) => `ORDER BY ${alias}.occurred_at DESC, ${alias}.id DESC LIMIT ${limitParam}`;
    if (filters.length === 0) {
      return queryPrepared<AuditEventRow>(
        this.dataSource,
        `quire_audit_page_${shape || 'all'}`,
        `SELECT * FROM audit_events e WHERE ${where('e', times)} ${newestFirst('e')}`,
        values,
      );
    }
    // A filter reads the keys of the sealed events from their links' indexes (the sealer copies the filtered columns
    // there) and those of the events still queued for the sealer (seconds' worth) from the queue, filtered on the event;
    // the sealer moves an event from one to the other in one transaction, so a page's snapshot sees it once.
    const sameEvent = (alias: string, as: string) =>
      `${alias}.organization_id = ${as}.organization_id AND ${alias}.occurred_at = ${as}.occurred_at AND ${alias}.id = ${as}.id`;
    // Three partitioned tables whose months are parameters: run on its generic plan (see queryPreparedGeneric).
    return queryPreparedGeneric<AuditEventRow>(
      this.dataSource,
      `quire_audit_filter_${shape}`,
      `SELECT e.* FROM (
         SELECT * FROM (
           (SELECT l.organization_id, l.occurred_at, l.id FROM audit_chain_links l WHERE ${where('l', [...times, ...filters])} ${newestFirst('l')})
           UNION ALL
           (SELECT u.organization_id, u.occurred_at, u.id FROM audit_unsealed u
            CROSS JOIN LATERAL (SELECT 1 FROM audit_events q WHERE ${sameEvent('q', 'u')} AND ${where('q', [...times, ...filters])} OFFSET 0) q
            WHERE ${where('u', times)} ${newestFirst('u')})
         ) keys ${newestFirst('keys')}
       ) p
       CROSS JOIN LATERAL (SELECT * FROM audit_events e WHERE ${sameEvent('e', 'p')} AND ${where('e', times)} OFFSET 0) e
       ${newestFirst('e')}`,
      values,
    );
  }

  /** The event `id` of the organization, recorded at `occurredAt` (the time its UUIDv7 id carries): one primary-key lookup in one partition. */
  async findOne(organizationId: string, id: string, occurredAt: Date): Promise<AuditEventRow | null> {
    const rows: AuditEventRow[] = await this.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND occurred_at = $2 AND id = $3`, [
      organizationId,
      occurredAt,
      id,
    ]);
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
