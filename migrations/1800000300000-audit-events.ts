import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log: one row per change, inserted in the change's own transaction, partitioned by month
 * (UTC) on `occurred_at` like `insights_events`. Rows are inserted unsealed (`seq` null); the sealer
 * (modules/audit/audit-sealer.service.ts) gives each its place in the organization's hash chain
 * (`seq`, `prev_hash`, `hash`) under the lock of the organization's `audit_chains` row, so writers
 * never wait on each other. No foreign keys: events outlive what they name (a deleted space's
 * events stay) and leave only with their partition at AUDIT_RETENTION_DAYS.
 */
export class AuditEvents1800000300000 implements MigrationInterface {
  name = 'AuditEvents1800000300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE audit_events (
        organization_id text NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        id uuid NOT NULL,
        action text NOT NULL,
        actor_type text NOT NULL,
        actor_id text NOT NULL,
        actor_label text,
        source text NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        target_label text,
        correlation_id text,
        execution_id text,
        caused_by_event_id uuid,
        ip text,
        user_agent text,
        schema_version integer NOT NULL DEFAULT 1,
        payload jsonb NOT NULL DEFAULT '{}',
        seq bigint,
        prev_hash text,
        hash text,
        PRIMARY KEY (organization_id, occurred_at, id)
      ) PARTITION BY RANGE (occurred_at)`);
    // The list's order is (occurred_at, id) within an organization: the primary key serves it; each
    // filter has its own index ending in the same key, so a filtered page is a range scan too.
    await db.query(`CREATE INDEX audit_events_action_idx ON audit_events (organization_id, action, occurred_at, id)`);
    await db.query(`CREATE INDEX audit_events_actor_idx ON audit_events (organization_id, actor_id, occurred_at, id)`);
    await db.query(`CREATE INDEX audit_events_target_idx ON audit_events (organization_id, target_id, occurred_at, id)`);
    // The usual combinations ("what did this person / what happened to this thing, of this kind"): without
    // these, a rare combination walks every event of one filter to find the few of the other.
    await db.query(`CREATE INDEX audit_events_actor_action_idx ON audit_events (organization_id, actor_id, action, occurred_at, id)`);
    await db.query(`CREATE INDEX audit_events_target_action_idx ON audit_events (organization_id, target_id, action, occurred_at, id)`);
    await db.query(`CREATE INDEX audit_events_id_idx ON audit_events (id)`);
    await db.query(`CREATE INDEX audit_events_chain_idx ON audit_events (organization_id, seq)`);
    await db.query(`CREATE INDEX audit_events_unsealed_idx ON audit_events (organization_id, occurred_at, id) WHERE seq IS NULL`);

    // The head of each organization's chain: its row is the per-organization sealing lock.
    await db.query(`
      CREATE TABLE audit_chains (
        organization_id text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT 0,
        head_hash text NOT NULL,
        sealed_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    await db.query(`
      CREATE FUNCTION audit_ensure_partitions(from_ts timestamptz, to_ts timestamptz) RETURNS integer
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
      END $$`);

    // Detaches, then drops, every monthly partition that ends at or before the cutoff; returns the
    // end of the newest one dropped (null: none).
    await db.query(`
      CREATE FUNCTION audit_drop_partitions_before(cutoff timestamptz) RETURNS timestamptz
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
      END $$`);

    await db.query(`SELECT audit_ensure_partitions(now() - interval '1 month', now() + interval '3 months')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION audit_drop_partitions_before(timestamptz)`);
    await db.query(`DROP FUNCTION audit_ensure_partitions(timestamptz, timestamptz)`);
    await db.query(`DROP TABLE audit_chains`);
    await db.query(`DROP TABLE audit_events`);
  }
}
