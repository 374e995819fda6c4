import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content at scale (issue 18):
 * - sections are matched when a search returns their page, so they no longer carry a tsvector
 *   (a body is turned into lexemes once, for `documents.tsv`, instead of twice);
 * - `search_pages.tsv` is stored uncompressed and in the row itself up to a row of 8 KB (a
 *   tsvector barely compresses; pglz spent more time trying than the insert itself, and a
 *   vector out of line costs a TOAST fetch per row a search looks at), and each row carries the vector of its title and
 *   description (`title_tsv`, with its own small GIN index), searched first;
 * - the tables a revision write fills are written in bulk, so nothing changes for them here.
 */
export class ContentAtScale1800000078000 implements MigrationInterface {
  name = 'ContentAtScale1800000078000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE document_sections DROP COLUMN tsv`);
    await db.query(`ALTER TABLE search_pages ALTER COLUMN tsv SET STORAGE EXTERNAL`);
    await db.query(`ALTER TABLE search_pages SET (toast_tuple_target = 8160)`);
    await db.query(`ALTER TABLE search_pages ADD COLUMN title_tsv tsvector NOT NULL DEFAULT ''`);
    await db.query(`UPDATE search_pages SET title_tsv = setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B')`);
    await db.query(`CREATE INDEX search_pages_title_tsv_idx ON search_pages USING gin (title_tsv)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX search_pages_title_tsv_idx`);
    await db.query(`ALTER TABLE search_pages DROP COLUMN title_tsv`);
    await db.query(`ALTER TABLE search_pages ALTER COLUMN tsv SET STORAGE EXTENDED`);
    await db.query(`ALTER TABLE search_pages RESET (toast_tuple_target)`);
    await db.query(`ALTER TABLE document_sections ADD COLUMN tsv tsvector`);
    await db.query(
      `UPDATE document_sections SET tsv = setweight(to_tsvector('english', heading), 'B') || setweight(to_tsvector('english', left(body, 400000)), 'C')`,
    );
    await db.query(`ALTER TABLE document_sections ALTER COLUMN tsv SET NOT NULL`);
  }
}
