import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The generation trigger (1800000150001) also notifies `published_generation`: PostgreSQL delivers a
 * notification only once its transaction commits, so every replica listening drops the site
 * snapshots it keeps moments after a change, and URL resolution no longer reads the sequence on every
 * request (src/modules/published/snapshot-freshness.ts). Notifications of one transaction with the
 * same payload are folded into one.
 */
export class PublishedNotify1800000280000 implements MigrationInterface {
  name = 'PublishedNotify1800000280000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION bump_published_generation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM nextval('published_generation');
        PERFORM pg_notify('published_generation', '');
        RETURN NULL;
      END $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION bump_published_generation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM nextval('published_generation');
        RETURN NULL;
      END $$`);
  }
}
