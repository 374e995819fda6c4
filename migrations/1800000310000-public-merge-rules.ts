import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The public `mergeRules` of spaces and organizations (`MergeRulesSpaceConfiguration`,
 * `MergeRulesStandaloneConfiguration`), stored as given: `spaces.merge_rules` (null: `inherit`) and
 * `organizations.merge_rules` (default `none`). The Quire extension `space_merge_rules` keeps only
 * what the public rules cannot say, the number of approvals; its two other settings become public
 * rules: `block_on_changes_requested` → `require_all_reviews_approved`, and a required approval →
 * `require_at_least_one_approved_review`. `admins_can_override` has no public equivalent but
 * `allow_bypass` naming users, so it is dropped (the tighter reading: nobody bypasses).
 */
export class PublicMergeRules1800000310000 implements MigrationInterface {
  name = 'PublicMergeRules1800000310000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE spaces ADD COLUMN merge_rules jsonb`);
    await db.query(`ALTER TABLE organizations ADD COLUMN merge_rules jsonb NOT NULL DEFAULT '{"type":"none"}'`);
    await db.query(`
      UPDATE spaces s SET merge_rules = jsonb_build_object('type', 'rules', 'rules', rules.list)
        FROM (SELECT space_id, jsonb_agg(jsonb_build_object('rule', rule)) AS list FROM (
                SELECT space_id, 'require_at_least_one_approved_review' AS rule FROM space_merge_rules WHERE required_approvals > 0
                UNION ALL
                SELECT space_id, 'require_all_reviews_approved' FROM space_merge_rules WHERE block_on_changes_requested
              ) r GROUP BY space_id) rules
       WHERE rules.space_id = s.id`);
    await db.query(`DELETE FROM space_merge_rules WHERE required_approvals <= 1`);
    await db.query(`ALTER TABLE space_merge_rules DROP COLUMN block_on_changes_requested, DROP COLUMN admins_can_override`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE space_merge_rules ADD COLUMN block_on_changes_requested boolean NOT NULL DEFAULT true`);
    await db.query(`ALTER TABLE space_merge_rules ADD COLUMN admins_can_override boolean NOT NULL DEFAULT false`);
    await db.query(`
      INSERT INTO space_merge_rules (space_id, required_approvals, block_on_changes_requested)
      SELECT id, CASE WHEN merge_rules @> '{"rules":[{"rule":"require_at_least_one_approved_review"}]}' THEN 1 ELSE 0 END,
             merge_rules @> '{"rules":[{"rule":"require_all_reviews_approved"}]}'
        FROM spaces WHERE merge_rules @> '{"type":"rules"}'
      ON CONFLICT (space_id) DO UPDATE SET block_on_changes_requested = excluded.block_on_changes_requested`);
    await db.query(`ALTER TABLE organizations DROP COLUMN merge_rules`);
    await db.query(`ALTER TABLE spaces DROP COLUMN merge_rules`);
  }
}
