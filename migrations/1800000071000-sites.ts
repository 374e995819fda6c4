import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Docs sites (section 2.8): the row other modules refer to (insights, integrations). The sites module
 * adds the rest of a site's columns and its site spaces, sections and share links.
 */
export class Sites1800000071000 implements MigrationInterface {
  name = 'Sites1800000071000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE sites (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        title text NOT NULL,
        created_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX sites_organization_idx ON sites (organization_id, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE sites`);
  }
}
