import { MigrationInterface, QueryRunner } from 'typeorm';

/** Computed pages (section 2.19): a page may carry the source its document is generated from. */
export class ComputedPages1800000071500 implements MigrationInterface {
  name = 'ComputedPages1800000071500';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE revision_pages ADD COLUMN computed jsonb DEFAULT NULL CHECK (computed IS NULL OR jsonb_typeof(computed) = 'object')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE revision_pages DROP COLUMN computed`);
  }
}
