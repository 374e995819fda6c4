import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A body's tsvector (`documents.tsv`) is stored without compression (`STORAGE EXTERNAL`): it still
 * goes out of line when the row is large, as before, but pglz no longer tries to compress it first.
 * A tsvector barely compresses, and the attempt cost more than the rest of the insert: storing the
 * 100,000 bodies of a large import took 20 s with compression against 6 s without (the same choice
 * `search_pages.tsv` made in ContentAtScale1800000078000). Rows already stored keep their form.
 */
export class DocumentTsvUncompressed1800000081000 implements MigrationInterface {
  name = 'DocumentTsvUncompressed1800000081000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE documents ALTER COLUMN tsv SET STORAGE EXTERNAL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE documents ALTER COLUMN tsv SET STORAGE EXTENDED`);
  }
}
