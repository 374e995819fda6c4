import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visitor authentication of published sites (issue 26, point 3): one row per site that has publishing
 * auth configured. `private_key` signs and verifies visitor JWTs (HS256); it is encrypted at rest by
 * the entity's transformer (AES-256-GCM, context `site_publishing_auth.private_key`) like the other
 * secrets listed in `common/crypto/secret-columns.ts`.
 */
export class SitePublishingAuth1800000150000 implements MigrationInterface {
  name = 'SitePublishingAuth1800000150000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE site_publishing_auth (
        site_id text PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
        private_key text NOT NULL,
        backend text NOT NULL DEFAULT 'custom' CHECK (backend IN ('custom', 'integration')),
        fallback_url text,
        logout_url text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE site_publishing_auth`);
  }
}
