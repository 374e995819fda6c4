import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Comments and replies on spaces and change requests (sections 2.4, 2.5). A comment belongs to its
 * space (and to a change request when `change_request_id` is set); everything cascades from the
 * space, so the retention purge removes them. The open-comment counters stay columns of `spaces` and
 * `change_requests`, moved by the comment writes under the space's row lock.
 *
 * A comment's target is the revision it was posted on (the space's active revision, or the change
 * request's head), an optional page of that revision with the page's body id at posting (`outdated`
 * compares it with the page's current body), and an optional node (a heading anchor of that page).
 */
export class Comments1800000073000 implements MigrationInterface {
  name = 'Comments1800000073000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE comments (
        id text PRIMARY KEY,
        space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
        change_request_id text REFERENCES change_requests (id) ON DELETE CASCADE,
        revision_id text NOT NULL REFERENCES revisions (id),
        page_id text,
        page_document_id text,
        node_id text,
        node_preview text,
        markdown text NOT NULL,
        posted_by text NOT NULL REFERENCES users (id),
        posted_at timestamptz(3) NOT NULL DEFAULT now(),
        edited_at timestamptz(3),
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
        resolved_at timestamptz(3),
        resolved_by text REFERENCES users (id),
        CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND resolved_by IS NOT NULL)),
        CHECK (node_id IS NULL OR page_id IS NOT NULL)
      )`);
    // Lists, newest or oldest first, keyset on (posted_at, id): the space's own comments, and a change request's.
    await db.query(`CREATE INDEX comments_space_idx ON comments (space_id, posted_at, id) WHERE change_request_id IS NULL`);
    await db.query(`CREATE INDEX comments_change_request_idx ON comments (change_request_id, posted_at, id) WHERE change_request_id IS NOT NULL`);
    await db.query(`
      CREATE TABLE comment_replies (
        id text PRIMARY KEY,
        comment_id text NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
        markdown text NOT NULL,
        posted_by text NOT NULL REFERENCES users (id),
        posted_at timestamptz(3) NOT NULL DEFAULT now(),
        edited_at timestamptz(3)
      )`);
    await db.query(`CREATE INDEX comment_replies_comment_idx ON comment_replies (comment_id, posted_at, id)`);
    // One reaction per user and emoji: reacting twice with the same emoji counts once.
    await db.query(`
      CREATE TABLE comment_reactions (
        comment_id text NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
        emoji text NOT NULL,
        user_id text NOT NULL REFERENCES users (id),
        reacted_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (comment_id, emoji, user_id)
      )`);
    await db.query(`
      CREATE TABLE comment_reply_reactions (
        reply_id text NOT NULL REFERENCES comment_replies (id) ON DELETE CASCADE,
        emoji text NOT NULL,
        user_id text NOT NULL REFERENCES users (id),
        reacted_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (reply_id, emoji, user_id)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE comment_reply_reactions`);
    await db.query(`DROP TABLE comment_reactions`);
    await db.query(`DROP TABLE comment_replies`);
    await db.query(`DROP TABLE comments`);
  }
}
