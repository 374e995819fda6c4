import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables whose rows decide what a published URL resolves to, and the changes of theirs that matter. */
const WATCHED: [table: string, events: string][] = [
  ['sites', 'INSERT OR UPDATE OR DELETE'],
  ['site_spaces', 'INSERT OR UPDATE OR DELETE'],
  ['site_sections', 'INSERT OR UPDATE OR DELETE'],
  ['site_section_groups', 'INSERT OR UPDATE OR DELETE'],
  ['site_share_links', 'INSERT OR UPDATE OR DELETE'],
  ['site_publishing_auth', 'INSERT OR UPDATE OR DELETE'],
  ['spaces', 'UPDATE OR DELETE'],
  ['organizations', 'UPDATE OR DELETE'],
];

/**
 * URL resolution keeps each site's snapshot in memory, valid while `published_generation` has not
 * moved: every committed change to the watched tables advances the sequence (a deferred constraint
 * trigger, so the bump happens as the transaction commits), and every replica reads the sequence's
 * `last_value` (one trivial read, no lock) before using what it keeps. A sequence, not a counter
 * row: writers never wait on each other for it.
 */
export class PublishedGeneration1800000150001 implements MigrationInterface {
  name = 'PublishedGeneration1800000150001';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SEQUENCE published_generation`);
    await db.query(`
      CREATE FUNCTION bump_published_generation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM nextval('published_generation');
        RETURN NULL;
      END $$`);
    for (const [table, events] of WATCHED) {
      await db.query(
        `CREATE CONSTRAINT TRIGGER ${table}_published_generation AFTER ${events} ON ${table}
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_published_generation()`,
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const [table] of WATCHED) await db.query(`DROP TRIGGER ${table}_published_generation ON ${table}`);
    await db.query(`DROP FUNCTION bump_published_generation()`);
    await db.query(`DROP SEQUENCE published_generation`);
  }
}
