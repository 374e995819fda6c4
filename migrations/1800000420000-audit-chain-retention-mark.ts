import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each organization's chain head remembers the last event the retention dropped (`dropped_seq`, `dropped_hash`), so
 * `audit:verify` tells events the retention dropped from events deleted by hand: a chain whose first events are
 * missing verifies only when they are at or before that mark, and the first one after it must carry its hash. The
 * retention sets the mark from each links partition, in the transaction that drops it.
 */
export class AuditChainRetentionMark1800000420000 implements MigrationInterface {
  name = 'AuditChainRetentionMark1800000420000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_chains ADD COLUMN dropped_seq bigint NOT NULL DEFAULT 0, ADD COLUMN dropped_hash text`);
    // Chains whose first months a retention dropped before the mark existed: the mark is where each chain now starts.
    await db.query(
      `UPDATE audit_chains c SET dropped_seq = f.seq - 1, dropped_hash = f.prev_hash
         FROM (SELECT DISTINCT ON (organization_id) organization_id, seq, prev_hash FROM audit_chain_links ORDER BY organization_id, seq) f
        WHERE f.organization_id = c.organization_id AND f.seq > 1`,
    );
    await db.query(DROP_MARKING);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(DROP_UNMARKED);
    await db.query(`ALTER TABLE audit_chains DROP COLUMN dropped_seq, DROP COLUMN dropped_hash`);
  }
}

/** The loop of `audit_drop_partitions_before`, with `mark` run on each links partition before it is dropped. */
const dropFunction = (mark: string) => `
  CREATE OR REPLACE FUNCTION audit_drop_partitions_before(cutoff timestamptz) RETURNS timestamptz
  LANGUAGE plpgsql AS $$
  DECLARE
    child record;
    month_start timestamptz;
    month_end timestamptz;
    links text;
    dropped_until timestamptz;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('audit_events partitions'));
    FOR child IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'audit_events'::regclass AND c.relname ~ '^audit_events_[0-9]{6}$'
      ORDER BY c.relname
    LOOP
      month_start := to_date(right(child.relname, 6), 'YYYYMM')::timestamp AT TIME ZONE 'UTC';
      month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
      EXIT WHEN month_end > cutoff;
      EXECUTE format('ALTER TABLE audit_events DETACH PARTITION %I', child.relname);
      EXECUTE format('DROP TABLE %I', child.relname);
      links := 'audit_chain_links_' || right(child.relname, 6);
      IF to_regclass(links) IS NOT NULL THEN
        ${mark}
        EXECUTE format('ALTER TABLE audit_chain_links DETACH PARTITION %I', links);
        EXECUTE format('DROP TABLE %I', links);
      END IF;
      DELETE FROM audit_unsealed WHERE occurred_at < month_end;
      dropped_until := month_end;
    END LOOP;
    RETURN dropped_until;
  END $$`;

/** Each organization's last link in the partition (by its primary key, newest `seq` first) moves its mark forward. */
const DROP_MARKING = dropFunction(`EXECUTE format(
          'UPDATE audit_chains c SET dropped_seq = l.seq, dropped_hash = l.hash
             FROM (SELECT DISTINCT ON (organization_id) organization_id, seq, hash FROM %I ORDER BY organization_id DESC, seq DESC) l
            WHERE c.organization_id = l.organization_id AND l.seq > c.dropped_seq', links);`);

/** The function as 1800000400000 made it. */
const DROP_UNMARKED = dropFunction('');
