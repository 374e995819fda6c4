import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change requests: proposed edits to a space, each on its own line of revisions (section 2.6).
 * `number` is given under the space's row lock from `spaces.change_request_seq`, so it is never
 * repeated or skipped. The space's counters (section 2.3: `comments`, `changeRequests`,
 * `changeRequestsOpen`, `changeRequestsDraft`) are columns kept by the writers in the transaction that
 * changes what they count, under the same lock; a change request keeps its own open-comment count.
 */
export class ChangeRequests1800000070000 implements MigrationInterface {
  name = 'ChangeRequests1800000070000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE spaces
        ADD COLUMN change_request_seq integer NOT NULL DEFAULT 0 CHECK (change_request_seq >= 0),
        ADD COLUMN change_requests_count integer NOT NULL DEFAULT 0 CHECK (change_requests_count >= 0),
        ADD COLUMN open_change_requests integer NOT NULL DEFAULT 0 CHECK (open_change_requests >= 0),
        ADD COLUMN draft_change_requests integer NOT NULL DEFAULT 0 CHECK (draft_change_requests >= 0),
        ADD COLUMN open_comments integer NOT NULL DEFAULT 0 CHECK (open_comments >= 0)`);
    await db.query(`
      CREATE TABLE change_requests (
        id text PRIMARY KEY,
        space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
        number integer NOT NULL CHECK (number > 0),
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('draft', 'open', 'archived', 'merged')),
        subject text NOT NULL DEFAULT '' CHECK (char_length(subject) <= 100),
        agent_task_id text,
        created_by text REFERENCES users (id) ON DELETE SET NULL,
        revision_initial text NOT NULL REFERENCES revisions (id),
        revision text NOT NULL REFERENCES revisions (id),
        revision_merged_ancestor text REFERENCES revisions (id),
        revision_merged text REFERENCES revisions (id),
        open_comments integer NOT NULL DEFAULT 0 CHECK (open_comments >= 0),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        merged_at timestamptz(3),
        UNIQUE (space_id, number)
      )`);
    // Lists: by space and status, newest first, keyset on (created_at, id).
    await db.query(`CREATE INDEX change_requests_space_status_idx ON change_requests (space_id, status, created_at, id)`);
    await db.query(`CREATE INDEX change_requests_created_by_idx ON change_requests (space_id, created_by, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE change_requests`);
    await db.query(`
      ALTER TABLE spaces
        DROP COLUMN change_request_seq, DROP COLUMN change_requests_count, DROP COLUMN open_change_requests,
        DROP COLUMN draft_change_requests, DROP COLUMN open_comments`);
  }
}
