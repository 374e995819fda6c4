import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams asked to review a change request (the public `ChangeRequestRequestedReviewer` of `kind: team`):
 * `change_request_requested_teams`, until a member of the team reviews or the request is removed.
 * `change_request_review_requests` lists both kinds in one order (oldest request first), so one
 * keyset pages through users and teams together.
 */
export class TeamReviewers1800000312000 implements MigrationInterface {
  name = 'TeamReviewers1800000312000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE change_request_requested_teams (
        change_request_id text NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
        team_id text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        requested_by text REFERENCES users (id) ON DELETE SET NULL,
        revision_id text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (change_request_id, team_id)
      )`);
    await db.query(`CREATE INDEX change_request_requested_teams_list_idx ON change_request_requested_teams (change_request_id, created_at, team_id)`);
    await db.query(`
      CREATE VIEW change_request_review_requests AS
        SELECT change_request_id, user_id AS reviewer_id, 'user'::text AS kind, requested_by, revision_id, created_at FROM change_request_requested_reviewers
        UNION ALL
        SELECT change_request_id, team_id, 'team'::text, requested_by, revision_id, created_at FROM change_request_requested_teams`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP VIEW change_request_review_requests`);
    await db.query(`DROP TABLE change_request_requested_teams`);
  }
}
