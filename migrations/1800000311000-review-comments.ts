import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A review's comment is a comment of its change request (the public `ChangeRequestReview.comment` is a
 * `Comment`, whose `target.review` names the review): `comments.review_id`, one comment per review at
 * most, gone with its review. The markdown reviews kept (`change_request_reviews.comment_markdown`)
 * becomes such a comment, posted by the reviewer when the review was submitted, on the revision it
 * reviewed, and counted among the change request's open comments.
 */
export class ReviewComments1800000311000 implements MigrationInterface {
  name = 'ReviewComments1800000311000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE comments ADD COLUMN review_id text REFERENCES change_request_reviews (id) ON DELETE CASCADE`);
    await db.query(`CREATE UNIQUE INDEX comments_review_idx ON comments (review_id) WHERE review_id IS NOT NULL`);
    // A review's id names its comment too: ids are ULIDs, so no comment has it already.
    await db.query(`
      INSERT INTO comments (id, space_id, change_request_id, revision_id, markdown, posted_by, posted_at, status, review_id)
      SELECT r.id, cr.space_id, cr.id, r.revision_id, r.comment_markdown, r.reviewer_id, r.created_at, 'open', r.id
        FROM change_request_reviews r JOIN change_requests cr ON cr.id = r.change_request_id
       WHERE r.comment_markdown IS NOT NULL`);
    await db.query(`
      UPDATE change_requests cr SET open_comments = open_comments + n.count
        FROM (SELECT change_request_id, count(*)::int AS count FROM change_request_reviews WHERE comment_markdown IS NOT NULL GROUP BY change_request_id) n
       WHERE n.change_request_id = cr.id`);
    await db.query(`ALTER TABLE change_request_reviews DROP COLUMN comment_markdown`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE change_request_reviews ADD COLUMN comment_markdown text`);
    await db.query(`UPDATE change_request_reviews r SET comment_markdown = c.markdown FROM comments c WHERE c.review_id = r.id`);
    await db.query(`
      UPDATE change_requests cr SET open_comments = greatest(open_comments - n.count, 0)
        FROM (SELECT change_request_id, count(*)::int AS count FROM comments WHERE review_id IS NOT NULL AND status = 'open' GROUP BY change_request_id) n
       WHERE n.change_request_id = cr.id`);
    await db.query(`DELETE FROM comments WHERE review_id IS NOT NULL`);
    await db.query(`ALTER TABLE comments DROP COLUMN review_id`);
  }
}
