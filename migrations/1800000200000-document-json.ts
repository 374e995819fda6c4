import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A body's public `JSONDocument` (`markdownToDocument` of its markdown), stored beside the markdown
 * when the body is first written, so that reads answering documents never parse. Rows stored before
 * this column have it NULL: the `content.fill-documents` maintenance job fills them in batches, and
 * until then a read parses as it did. The partial index lets that job find them without a scan.
 */
export class DocumentJson1800000200000 implements MigrationInterface {
  name = 'DocumentJson1800000200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE documents ADD COLUMN document jsonb`);
    await db.query(`CREATE INDEX documents_document_missing_idx ON documents (id) WHERE document IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX documents_document_missing_idx`);
    await db.query(`ALTER TABLE documents DROP COLUMN document`);
  }
}
