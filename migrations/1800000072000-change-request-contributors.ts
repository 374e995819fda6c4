import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who contributed to a change request (its creator and every author of a content change, update from
 * main or import), for the list's `contributor` filter: one row per (change request, user).
 */
export class ChangeRequestContributors1800000072000 implements MigrationInterface {
  name = 'ChangeRequestContributors1800000072000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE change_request_contributors (
        change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        PRIMARY KEY (change_request_id, user_id)
      )`);
    await db.query(`CREATE INDEX change_request_contributors_user_idx ON change_request_contributors (user_id, change_request_id)`);
    // Who merged it (the public ChangeRequest's `mergedBy`).
    await db.query(`ALTER TABLE change_requests ADD COLUMN merged_by text REFERENCES users (id) ON DELETE SET NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE change_requests DROP COLUMN merged_by`);
    await db.query(`DROP TABLE change_request_contributors`);
  }
}
