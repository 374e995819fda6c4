import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Site insights (section 4.19): events appended to a table partitioned by month (UTC), and two hourly
 * rollups kept by the ingest statement itself. Partitions are created by `insights_ensure_partitions`
 * (here for the current window, then ahead by the `insights.maintain-partitions` job) and dropped past
 * the retention by `insights_drop_partitions_before`.
 *
 * `insights_events.site_id` has no foreign key: the check cost a third of the ingest statement, and an
 * event of a deleted site is unreachable (every route looks the site up first) and leaves with its
 * partition at the retention. The rollups keep theirs (ON DELETE CASCADE; one row per hour and key).
 */
export class SiteInsights1800000076000 implements MigrationInterface {
  name = 'SiteInsights1800000076000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE insights_events (
        site_id text NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        type text NOT NULL,
        visitor_id text NOT NULL,
        session_id text NOT NULL,
        url text NOT NULL,
        url_path text NOT NULL,
        display_context text NOT NULL,
        site_section text,
        site_space text,
        site_share_key text,
        space_id text,
        revision_id text,
        page_id text,
        referrer text,
        referrer_domain text,
        language text,
        user_agent text,
        utm_source text,
        utm_medium text,
        utm_campaign text,
        utm_term text,
        utm_content text,
        visitor_claims jsonb,
        data jsonb
      ) PARTITION BY RANGE (occurred_at)`);
    await db.query(`CREATE INDEX insights_events_site_time_idx ON insights_events (site_id, occurred_at)`);

    // Hourly rollups: events per hour for the columns most aggregates group or filter by. A query whose
    // columns all live in one of them reads it for whole hours (see insights-query.compiler.ts).
    await db.query(`
      CREATE TABLE insights_hourly_totals (
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        hour timestamptz(3) NOT NULL,
        type text NOT NULL,
        display_context text NOT NULL,
        events bigint NOT NULL,
        PRIMARY KEY (site_id, hour, type, display_context)
      )`);
    await db.query(`
      CREATE TABLE insights_hourly_pages (
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        hour timestamptz(3) NOT NULL,
        type text NOT NULL,
        display_context text NOT NULL,
        site_section text,
        site_space text,
        site_share_key text,
        space_id text,
        page_id text,
        url_path text NOT NULL,
        referrer_domain text,
        events bigint NOT NULL,
        CONSTRAINT insights_hourly_pages_key UNIQUE NULLS NOT DISTINCT
          (site_id, hour, type, display_context, site_section, site_space, site_share_key, space_id, page_id, url_path, referrer_domain)
      )`);

    // Monthly partitions [from, to), named insights_events_YYYYMM (UTC). Idempotent; serialised by an
    // advisory lock so that replicas starting together do not race on CREATE TABLE.
    await db.query(`
      CREATE FUNCTION insights_ensure_partitions(from_ts timestamptz, to_ts timestamptz) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE
        month_start timestamptz := date_trunc('month', from_ts, 'UTC');
        month_end timestamptz;
        partition_name text;
        created integer := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('insights_events partitions'));
        WHILE month_start < to_ts LOOP
          month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
          partition_name := 'insights_events_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYYMM');
          IF to_regclass(partition_name) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF insights_events FOR VALUES FROM (%L) TO (%L)', partition_name, month_start, month_end);
            created := created + 1;
          END IF;
          month_start := month_end;
        END LOOP;
        RETURN created;
      END $$`);

    // Detaches and drops every monthly partition that ends at or before the cutoff, then the rollup
    // hours they covered, so rollups and raw events always describe the same events. Returns the end
    // of the newest partition dropped (null: none).
    await db.query(`
      CREATE FUNCTION insights_drop_partitions_before(cutoff timestamptz) RETURNS timestamptz
      LANGUAGE plpgsql AS $$
      DECLARE
        child record;
        month_start timestamptz;
        month_end timestamptz;
        dropped_until timestamptz;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('insights_events partitions'));
        FOR child IN
          SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'insights_events'::regclass AND c.relname ~ '^insights_events_[0-9]{6}$'
          ORDER BY c.relname
        LOOP
          month_start := to_date(right(child.relname, 6), 'YYYYMM')::timestamp AT TIME ZONE 'UTC';
          month_end := ((month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
          EXIT WHEN month_end > cutoff;
          EXECUTE format('ALTER TABLE insights_events DETACH PARTITION %I', child.relname);
          EXECUTE format('DROP TABLE %I', child.relname);
          dropped_until := month_end;
        END LOOP;
        IF dropped_until IS NOT NULL THEN
          DELETE FROM insights_hourly_totals WHERE hour < dropped_until;
          DELETE FROM insights_hourly_pages WHERE hour < dropped_until;
        END IF;
        RETURN dropped_until;
      END $$`);

    // The current window: last month to three months ahead (the job keeps it moving).
    await db.query(`SELECT insights_ensure_partitions(now() - interval '1 month', now() + interval '3 months')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION insights_drop_partitions_before(timestamptz)`);
    await db.query(`DROP FUNCTION insights_ensure_partitions(timestamptz, timestamptz)`);
    await db.query(`DROP TABLE insights_hourly_pages`);
    await db.query(`DROP TABLE insights_hourly_totals`);
    await db.query(`DROP TABLE insights_events`);
  }
}
