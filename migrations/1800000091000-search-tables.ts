import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The registry of spaces whose search rows live in a table of their own (`search_pages_<ulid>`,
 * same columns as `search_pages`) instead of `search_pages`: a large rebuild fills a new table
 * without indexes, indexes it once and swaps it in by writing this row, in the revision's
 * transaction (docs/scaling.md, "Search rows of a large revision"). A space's row goes with the
 * space; its table, no longer named here, is dropped by the `search.drop-retired-tables` job.
 */
export class SearchTables1800000091000 implements MigrationInterface {
  name = 'SearchTables1800000091000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE search_tables (
        space_id text PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        table_name text NOT NULL UNIQUE CHECK (table_name ~ '^search_pages_[0-9a-z]{26}$'),
        revision_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    const tables: { table_name: string }[] = await db.query(`SELECT table_name FROM search_tables`);
    for (const { table_name } of tables) await db.query(`DROP TABLE IF EXISTS "${table_name}"`);
    await db.query(`DROP TABLE search_tables`);
  }
}
