import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Renders of change-request PDFs, made by the `change-requests.render-pdf` job: one row per
 * (change request, revision, page, only); `page_id` is '' for the whole change request. The bytes
 * are kept until the hourly purge (`created_at` index).
 */
export class ChangeRequestPdfRenders1800000079000 implements MigrationInterface {
  name = 'ChangeRequestPdfRenders1800000079000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE change_request_pdf_renders (
        id text PRIMARY KEY,
        change_request_id text NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
        revision_id text NOT NULL,
        page_id text NOT NULL DEFAULT '',
        only_page boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
        data bytea,
        error text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        finished_at timestamptz(3),
        CONSTRAINT change_request_pdf_renders_key UNIQUE (change_request_id, revision_id, page_id, only_page)
      )`);
    await db.query(`CREATE INDEX change_request_pdf_renders_created_idx ON change_request_pdf_renders (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE change_request_pdf_renders`);
  }
}
