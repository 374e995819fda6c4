import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a revision written as a delta changed: the revision it was described against
 * (`delta_base_id`) and the keys of the pages (changed, re-pathed, removed) and files (added) that
 * differ from it. The revision equals its delta base on every other key, so what differs between two
 * revisions on one chain of deltas is within the union of the chain's keys: semantic changes read
 * those instead of comparing two layers whole. Null for revisions written otherwise (whole trees,
 * and revisions written before this migration): readers then compare rows.
 */
export class RevisionDeltaKeys1800000360000 implements MigrationInterface {
  name = 'RevisionDeltaKeys1800000360000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE revisions ADD COLUMN delta_base_id text, ADD COLUMN delta_page_ids text[], ADD COLUMN delta_file_ids text[]`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE revisions DROP COLUMN delta_base_id, DROP COLUMN delta_page_ids, DROP COLUMN delta_file_ids`);
  }
}
