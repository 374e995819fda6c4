import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What `getEmbedByUrlInSpace` fetched for a URL (title, site, icon), kept so that a page the
 * renderer draws again does not fetch again. Keyed by the URL's SHA-256 (URLs can be long); `ok`
 * says whether the fetch answered, which decides how long the row is fresh. Rows are purged by age.
 */
export class EmbedCache1800000160000 implements MigrationInterface {
  name = 'EmbedCache1800000160000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE embed_cache (
      url_hash text PRIMARY KEY,
      url text NOT NULL,
      embed jsonb NOT NULL,
      ok boolean NOT NULL,
      fetched_at timestamptz(3) NOT NULL DEFAULT now()
    )`);
    // The daily purge deletes by age.
    await db.query(`CREATE INDEX embed_cache_fetched_at_idx ON embed_cache (fetched_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE embed_cache`);
  }
}
