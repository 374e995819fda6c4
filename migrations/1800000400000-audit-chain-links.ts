import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hash chain leaves `audit_events`, which is then never updated after its insert:
 * - `audit_unsealed`: the events waiting for the sealer (inserted with each event, deleted as it is sealed);
 * - `audit_chain_links`: each sealed event's place in its organization's chain (`seq`, `prev_hash`, `hash`),
 *   insert-only, partitioned by month like the events and dropped with them.
 * Sealing an event used to UPDATE its row: never a HOT update (the chain and unsealed indexes are on `seq`), so a
 * second row version with an entry in every index, and as many dead entries for vacuum. Now it deletes one
 * queue row and inserts one link (two index entries in all).
 */
export class AuditChainLinks1800000400000 implements MigrationInterface {
  name = 'AuditChainLinks1800000400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE audit_unsealed (
        organization_id text NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        id uuid NOT NULL,
        PRIMARY KEY (organization_id, occurred_at, id)
      )`);
    await db.query(`
      CREATE TABLE audit_chain_links (
        organization_id text NOT NULL,
        seq bigint NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        id uuid NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (organization_id, seq, occurred_at)
      ) PARTITION BY RANGE (occurred_at)`);
    await db.query(ENSURE_BOTH);
    await db.query(DROP_BOTH);
    // A links partition beside every month that holds events, and the months kept ahead.
    await db.query(
      `SELECT audit_ensure_partitions(least((SELECT min(occurred_at) FROM audit_events), now() - interval '1 month'), now() + interval '3 months')`,
    );
    await db.query(`INSERT INTO audit_chain_links SELECT organization_id, seq, occurred_at, id, prev_hash, hash FROM audit_events WHERE seq IS NOT NULL`);
    await db.query(`INSERT INTO audit_unsealed SELECT organization_id, occurred_at, id FROM audit_events WHERE seq IS NULL`);
    await db.query(`DROP INDEX audit_events_chain_idx`);
    await db.query(`DROP INDEX audit_events_unsealed_idx`);
    await db.query(`ALTER TABLE audit_events DROP COLUMN seq, DROP COLUMN prev_hash, DROP COLUMN hash`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_events ADD COLUMN seq bigint, ADD COLUMN prev_hash text, ADD COLUMN hash text`);
    await db.query(
      `UPDATE audit_events e SET seq = l.seq, prev_hash = l.prev_hash, hash = l.hash
       FROM audit_chain_links l WHERE l.organization_id = e.organization_id AND l.occurred_at = e.occurred_at AND l.id = e.id`,
    );
    await db.query(`CREATE INDEX audit_events_chain_idx ON audit_events (organization_id, seq) WHERE seq IS NOT NULL`);
    await db.query(`CREATE INDEX audit_events_unsealed_idx ON audit_events (organization_id, occurred_at, id) WHERE seq IS NULL`);
    await db.query(ENSURE_EVENTS);
    await db.query(DROP_EVENTS);
    await db.query(`DROP TABLE audit_chain_links`);
    await db.query(`DROP TABLE audit_unsealed`);
  }
}

/** Creates the monthly partitions of the events and of their chain links from `from_ts` to `to_ts`. */
const ENSURE_BOTH = `
  CREATE OR REPLACE FUNCTION audit_ensure_partitions(from_ts timestamptz, to_ts timestamptz) RETURNS integer
  LANGUAGE plpgsql AS $$
  DECLARE
    month_start timestamptz := date_trunc('month', from_ts, 'UTC');
    month_end timestamptz;
    suffix text;
    created integer := 0;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('audit_events partitions'));
    WHILE month_start < to_ts LOOP
      month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
      suffix := to_char(month_start AT TIME ZONE 'UTC', 'YYYYMM');
      IF to_regclass('audit_events_' || suffix) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%L) TO (%L)', 'audit_events_' || suffix, month_start, month_end);
        created := created + 1;
      END IF;
      IF to_regclass('audit_chain_links_' || suffix) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_chain_links FOR VALUES FROM (%L) TO (%L)', 'audit_chain_links_' || suffix, month_start, month_end);
      END IF;
      month_start := month_end;
    END LOOP;
    RETURN created;
  END $$`;

/**
 * Detaches, then drops, every monthly partition of the events (and its chain links) that ends at or before the
 * cutoff, and forgets the queued events older than it; returns the end of the newest one dropped (null: none).
 */
const DROP_BOTH = `
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
        EXECUTE format('ALTER TABLE audit_chain_links DETACH PARTITION %I', links);
        EXECUTE format('DROP TABLE %I', links);
      END IF;
      DELETE FROM audit_unsealed WHERE occurred_at < month_end;
      dropped_until := month_end;
    END LOOP;
    RETURN dropped_until;
  END $$`;

/** The functions as 1800000300000 made them (events only), for `down`. */
const ENSURE_EVENTS = `
  CREATE OR REPLACE FUNCTION audit_ensure_partitions(from_ts timestamptz, to_ts timestamptz) RETURNS integer
  LANGUAGE plpgsql AS $$
  DECLARE
    month_start timestamptz := date_trunc('month', from_ts, 'UTC');
    month_end timestamptz;
    partition_name text;
    created integer := 0;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('audit_events partitions'));
    WHILE month_start < to_ts LOOP
      month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
      partition_name := 'audit_events_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYYMM');
      IF to_regclass(partition_name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%L) TO (%L)', partition_name, month_start, month_end);
        created := created + 1;
      END IF;
      month_start := month_end;
    END LOOP;
    RETURN created;
  END $$`;

const DROP_EVENTS = `
  CREATE OR REPLACE FUNCTION audit_drop_partitions_before(cutoff timestamptz) RETURNS timestamptz
  LANGUAGE plpgsql AS $$
  DECLARE
    child record;
    month_start timestamptz;
    month_end timestamptz;
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
      dropped_until := month_end;
    END LOOP;
    RETURN dropped_until;
  END $$`;
