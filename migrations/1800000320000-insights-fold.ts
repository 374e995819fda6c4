import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Site insights rollups folded behind a watermark (see docs/modules/insights.md):
 * - `insights_events.ingest_xid`: the 64-bit id of the transaction that stored the event (`pg_current_xact_id()`),
 *   with a BRIN index (cheap to keep while appending, since ids grow with the insertion order) so the rows
 *   not folded yet are found without reading the others.
 * - `insights_fold_state.watermark`: every event whose `ingest_xid` is below it is counted in the rollups,
 *   none above it. The fold advances it to the oldest transaction still running (`pg_snapshot_xmin`).
 * - Minute rollups beside the hourly ones, with HyperLogLog sketches of visitors and sessions (bytea) in
 *   the totals of both widths.
 * The ingest statement no longer writes rollups: existing events count as folded (`ingest_xid` 0) and
 * their minute rollups are built here.
 */
export class InsightsFold1800000320000 implements MigrationInterface {
  name = 'InsightsFold1800000320000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE insights_events ADD COLUMN ingest_xid bigint NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE insights_events ALTER COLUMN ingest_xid SET DEFAULT (pg_current_xact_id()::text::bigint)`);
    await db.query(`CREATE INDEX insights_events_ingest_xid_idx ON insights_events USING brin (ingest_xid) WITH (pages_per_range = 16, autosummarize = on)`);
    await db.query(`
      CREATE TABLE insights_fold_state (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        watermark bigint NOT NULL,
        folded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`INSERT INTO insights_fold_state (watermark) VALUES (1)`);
    // An id's HyperLogLog register (insights-hll.ts): 64-bit hash, 14 bits of index, rank of the other 50.
    await db.query(`
      CREATE FUNCTION insights_hll_reg(id text) RETURNS integer
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT substring(h FROM 1 FOR 14)::integer * 64 + coalesce(nullif(position(B'1' IN substring(h FROM 15)), 0), 51)
        FROM (SELECT hashtextextended(id, 0)::bit(64) AS h) x
      $$`);

    await db.query(`ALTER TABLE insights_hourly_totals ADD COLUMN visitors bytea, ADD COLUMN sessions bytea`);
    await db.query(`
      CREATE TABLE insights_minute_totals (
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        minute timestamptz(3) NOT NULL,
        type text NOT NULL,
        display_context text NOT NULL,
        events bigint NOT NULL,
        visitors bytea,
        sessions bytea,
        PRIMARY KEY (site_id, minute, type, display_context)
      )`);
    await db.query(`
      CREATE TABLE insights_minute_pages (
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        minute timestamptz(3) NOT NULL,
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
        CONSTRAINT insights_minute_pages_key UNIQUE NULLS NOT DISTINCT
          (site_id, minute, type, display_context, site_section, site_space, site_share_key, space_id, page_id, url_path, referrer_domain)
      )`);
    const dims = 'type, display_context, site_section, site_space, site_share_key, space_id, page_id, url_path, referrer_domain';
    await db.query(`
      INSERT INTO insights_minute_totals (site_id, minute, type, display_context, events)
      SELECT site_id, date_trunc('minute', occurred_at), type, display_context, count(*) FROM insights_events GROUP BY 1, 2, 3, 4`);
    await db.query(`
      INSERT INTO insights_minute_pages (site_id, minute, ${dims}, events)
      SELECT site_id, date_trunc('minute', occurred_at), ${dims}, count(*) FROM insights_events GROUP BY 1, 2, ${dims}`);

    // Retention also drops the minute rollups of the months it drops.
    await db.query(`
      CREATE OR REPLACE FUNCTION insights_drop_partitions_before(cutoff timestamptz) RETURNS timestamptz
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
          DELETE FROM insights_minute_totals WHERE minute < dropped_until;
          DELETE FROM insights_minute_pages WHERE minute < dropped_until;
        END IF;
        RETURN dropped_until;
      END $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE insights_minute_pages`);
    await db.query(`DROP TABLE insights_minute_totals`);
    await db.query(`ALTER TABLE insights_hourly_totals DROP COLUMN visitors, DROP COLUMN sessions`);
    await db.query(`DROP FUNCTION insights_hll_reg(text)`);
    await db.query(`DROP TABLE insights_fold_state`);
    await db.query(`DROP INDEX insights_events_ingest_xid_idx`);
    await db.query(`ALTER TABLE insights_events DROP COLUMN ingest_xid`);
  }
}
