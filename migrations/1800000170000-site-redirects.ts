import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Site redirects (issue 26, point 8): `site_redirects` (one live and one draft redirect per source
 * and site; a source ending in `*` matches every path that starts with what precedes it, kept in
 * `prefix` so that a lookup probes the index with the prefixes of a path), and `space_moved_pages`:
 * the old paths of pages of published spaces whose path a new revision changed, so an old URL keeps
 * working as a redirect to where the page now is.
 */
export class SiteRedirects1800000170000 implements MigrationInterface {
  name = 'SiteRedirects1800000170000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE site_redirects (
        id text PRIMARY KEY,
        site_id text NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
        source text NOT NULL,
        prefix text NOT NULL,
        wildcard boolean NOT NULL,
        draft boolean NOT NULL DEFAULT false,
        capture_wildcard boolean NOT NULL DEFAULT false,
        permanent boolean NOT NULL DEFAULT false,
        destination jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3),
        CONSTRAINT site_redirects_source_length CHECK (char_length(source) BETWEEN 2 AND 512)
      )`);
    await db.query(`CREATE UNIQUE INDEX site_redirects_source ON site_redirects (site_id, draft, source)`);
    await db.query(`CREATE INDEX site_redirects_prefix ON site_redirects (site_id, prefix) WHERE wildcard AND NOT draft`);
    await db.query(`CREATE INDEX site_redirects_created ON site_redirects (site_id, draft, created_at, id)`);
    await db.query(`
      CREATE TABLE space_moved_pages (
        space_id text NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        old_path text NOT NULL,
        page_id text NOT NULL,
        moved_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (space_id, old_path)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE space_moved_pages`);
    await db.query(`DROP TABLE site_redirects`);
  }
}
