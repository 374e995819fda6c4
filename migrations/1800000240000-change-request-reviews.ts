import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change-request reviews (issue 29): `change_request_reviews` (one row per submitted review, pinned to
 * the change request's head at the time), `change_request_requested_reviewers` (who is asked to
 * review, until they review or are removed), `space_merge_rules` (the Quire extension that gates
 * merges on approvals), and the edit count and last edit time of each contributor (the public
 * `ChangeRequestUserContributor`'s `count` and `updatedAt`).
 */
export class ChangeRequestReviews1800000240000 implements MigrationInterface {
  name = 'ChangeRequestReviews1800000240000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE change_request_reviews (
        id text PRIMARY KEY,
        -- Orders a reviewer's reviews for "latest" and "superseded" even within one millisecond.
        seq bigint GENERATED ALWAYS AS IDENTITY,
        change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
        reviewer_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        requested_by text REFERENCES users (id) ON DELETE SET NULL,
        status text NOT NULL CHECK (status IN ('approved', 'changes-requested')),
        revision_id text NOT NULL,
        comment_markdown text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // The list (newest first, keyset on created_at, id) and each reviewer's latest review (merge rules).
    await db.query(`CREATE INDEX change_request_reviews_list_idx ON change_request_reviews (change_request_id, created_at, id)`);
    await db.query(`CREATE INDEX change_request_reviews_reviewer_idx ON change_request_reviews (change_request_id, reviewer_id, seq)`);
    await db.query(`
      CREATE TABLE change_request_requested_reviewers (
        change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        requested_by text REFERENCES users (id) ON DELETE SET NULL,
        revision_id text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (change_request_id, user_id)
      )`);
    await db.query(`CREATE INDEX change_request_requested_reviewers_list_idx ON change_request_requested_reviewers (change_request_id, created_at, user_id)`);
    await db.query(`
      CREATE TABLE space_merge_rules (
        space_id text PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
        required_approvals integer NOT NULL DEFAULT 0 CHECK (required_approvals BETWEEN 0 AND 20),
        block_on_changes_requested boolean NOT NULL DEFAULT true,
        admins_can_override boolean NOT NULL DEFAULT false,
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`ALTER TABLE change_request_contributors ADD COLUMN edits integer NOT NULL DEFAULT 1`);
    await db.query(`ALTER TABLE change_request_contributors ADD COLUMN updated_at timestamptz(3) NOT NULL DEFAULT now()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE change_request_contributors DROP COLUMN updated_at`);
    await db.query(`ALTER TABLE change_request_contributors DROP COLUMN edits`);
    await db.query(`DROP TABLE space_merge_rules`);
    await db.query(`DROP TABLE change_request_requested_reviewers`);
    await db.query(`DROP TABLE change_request_reviews`);
  }
}
