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
    // Chains whose first months a retention dropped before the mark existed: the mark is where each chain now starts,
    // or its head when every link is gone.
    await db.query(
      `UPDATE audit_chains c SET dropped_seq = c.seq, dropped_hash = c.head_hash
        WHERE c.seq > 0 AND NOT EXISTS (SELECT 1 FROM audit_chain_links l WHERE l.organization_id = c.organization_id)`,
    );
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

/**
 * `audit_drop_partitions_before`: `mark` runs on each links partition to be dropped, all of them, before the first
 * DETACH (which locks the tables until the transaction ends); then the months are detached and dropped as before.
 */
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
    PERFORM pg_advisory_xact_lock(hashtext('audit_events partitions'));${
      mark &&
      `
    FOR child IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'audit_chain_links'::regclass AND c.relname ~ '^audit_chain_links_[0-9]{6}$'
      ORDER BY c.relname
    LOOP
      month_start := to_date(right(child.relname, 6), 'YYYYMM')::timestamp AT TIME ZONE 'UTC';
      month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
      EXIT WHEN month_end > cutoff;
      links := child.relname;
      ${mark}
    END LOOP;`
    }
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
        EXECUTE format('ALTER TABLE audit_chain_links DETACH PARTITION %I', links);
        EXECUTE format('DROP TABLE %I', links);
      END IF;
      DELETE FROM audit_unsealed WHERE occurred_at < month_end;
      dropped_until := month_end;
    END LOOP;
    RETURN dropped_until;
  END $$`;

/**
 * Each organization's last link in the month (one probe of the partition's primary key per chain, newest `seq`
 * first) moves its mark forward, months oldest first.
 */
const DROP_MARKING = dropFunction(`EXECUTE format(
        'UPDATE audit_chains c SET dropped_seq = last.seq, dropped_hash = last.hash
           FROM (SELECT h.organization_id, l.seq, l.hash FROM audit_chains h
                   CROSS JOIN LATERAL (SELECT seq, hash FROM %I p WHERE p.organization_id = h.organization_id ORDER BY p.seq DESC LIMIT 1) l) last
          WHERE c.organization_id = last.organization_id AND last.seq > c.dropped_seq', links);`);

/** The function as 1800000400000 made it. */
const DROP_UNMARKED = dropFunction('');
