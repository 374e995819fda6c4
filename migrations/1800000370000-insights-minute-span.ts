import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The span of each minute rollup's events (see docs/modules/insights.md, "Which rows an aggregate reads"):
 * `first_at` and `last_at` on `insights_minute_totals`, the earliest and latest `occurred_at` of the folded
 * events of the row. An aggregate whose range starts or ends inside a minute reads that minute's rollups
 * instead of its raw events when every folded event of the minute lies inside the range.
 * Rows folded before this migration keep NULL (span unknown): the fold leaves it NULL when it adds to such a
 * row, and an aggregate reads their minute raw, as before. No backfill: the minutes a range ends in are
 * recent ones, folded again within a minute of the deploy.
 */
export class InsightsMinuteSpan1800000370000 implements MigrationInterface {
  name = 'InsightsMinuteSpan1800000370000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE insights_minute_totals ADD COLUMN first_at timestamptz(3), ADD COLUMN last_at timestamptz(3)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE insights_minute_totals DROP COLUMN last_at, DROP COLUMN first_at`);
  }
}
