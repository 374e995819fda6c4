import { MigrationInterface, QueryRunner } from 'typeorm';

const PAGE_COLUMNS = `page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
  hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at`;

/** The stored table of each per-revision table, the key its rows are resolved on, and its columns besides `revision_id`. */
const TABLES = [
  { view: 'revision_pages', rows: 'revision_page_rows', key: 'page_id', columns: PAGE_COLUMNS },
  { view: 'revision_files', rows: 'revision_file_rows', key: 'file_id', columns: 'file_id, name, content_type, size, width, height, blob_id, created_at' },
  {
    view: 'revision_reusable_contents',
    rows: 'revision_reusable_content_rows',
    key: 'reusable_content_id',
    columns: 'reusable_content_id, title, document_id',
  },
  { view: 'revision_links', rows: 'revision_link_rows', key: 'target_key', columns: 'target_key, status, target, pages' },
];

/**
 * Revisions stored as layers (issue 12): a revision is either full (all its rows stored under its
 * id, as before) or a layer over a full base (`revisions.base_id`): it stores only the rows that
 * differ from the base, and a tombstone (`deleted`) for each row of the base it does not have.
 * The tables keep their names as views that resolve every revision's rows (its own live rows, then
 * the base's rows it does not override), so every read is unchanged; writers insert into the
 * `*_rows` tables. A layer's base is always full (depth 1), and a revision some layer uses as its
 * base cannot be deleted (the foreign key has no cascade).
 */
export class RevisionLayers1800000080000 implements MigrationInterface {
  name = 'RevisionLayers1800000080000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE revisions ADD COLUMN base_id text REFERENCES revisions (id)`);
    await db.query(`CREATE INDEX revisions_base_idx ON revisions (base_id) WHERE base_id IS NOT NULL`);

    // A layer's page may hang under a page of its base: the tree is checked by the writers.
    const fk: { conname: string }[] = await db.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'revision_pages'::regclass AND contype = 'f' AND confrelid = 'revision_pages'::regclass`,
    );
    for (const { conname } of fk) await db.query(`ALTER TABLE revision_pages DROP CONSTRAINT "${conname}"`);

    for (const table of TABLES) {
      await db.query(`ALTER TABLE ${table.view} RENAME TO ${table.rows}`);
      await db.query(`ALTER TABLE ${table.rows} ADD COLUMN deleted boolean NOT NULL DEFAULT false`);
      await db.query(`ALTER INDEX ${table.view}_pkey RENAME TO ${table.rows}_pkey`);
    }
    // Uniqueness holds among a stored revision's live rows (a tombstone keeps the slug of the row it hides).
    await db.query(`DROP INDEX revision_pages_sibling_slug_key`);
    await db.query(`DROP INDEX revision_pages_path_key`);
    await db.query(
      `CREATE UNIQUE INDEX revision_page_rows_sibling_slug_key ON revision_page_rows (revision_id, coalesce(parent_id, ''), slug) WHERE slug IS NOT NULL AND NOT deleted`,
    );
    await db.query(`CREATE UNIQUE INDEX revision_page_rows_path_key ON revision_page_rows (revision_id, path) WHERE path IS NOT NULL AND NOT deleted`);
    await db.query(`ALTER INDEX revision_pages_children_idx RENAME TO revision_page_rows_children_idx`);
    await db.query(`ALTER INDEX revision_pages_document_idx RENAME TO revision_page_rows_document_idx`);
    await db.query(`ALTER INDEX revision_files_blob_idx RENAME TO revision_file_rows_blob_idx`);
    await db.query(`ALTER INDEX revision_reusable_contents_document_idx RENAME TO revision_reusable_content_rows_document_idx`);
    await db.query(`ALTER INDEX revision_links_status_idx RENAME TO revision_link_rows_status_idx`);
    await db.query(`ALTER INDEX revision_links_pages_idx RENAME TO revision_link_rows_pages_idx`);

    for (const table of TABLES) {
      const own = table.columns
        .split(',')
        .map((column) => `s.${column.trim()}`)
        .join(', ');
      const base = table.columns
        .split(',')
        .map((column) => `b.${column.trim()}`)
        .join(', ');
      // Both branches are simple enough for the planner to push `revision_id = $1` (and the other
      // conditions) into each: the first by the primary key, the second through `revisions` by id.
      await db.query(`
        CREATE VIEW ${table.view} AS
          SELECT s.revision_id, ${own} FROM ${table.rows} s WHERE NOT s.deleted
          UNION ALL
          SELECT r.id AS revision_id, ${base}
            FROM revisions r JOIN ${table.rows} b ON b.revision_id = r.base_id
           WHERE NOT b.deleted
             AND NOT EXISTS (SELECT 1 FROM ${table.rows} o WHERE o.revision_id = r.id AND o.${table.key} = b.${table.key})`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    // Layers are written out full first: the old tables hold every revision's rows.
    for (const table of TABLES) {
      await db.query(
        `CREATE TEMPORARY TABLE resolved AS SELECT * FROM ${table.view} WHERE revision_id IN (SELECT id FROM revisions WHERE base_id IS NOT NULL)`,
      );
      await db.query(`DELETE FROM ${table.rows} WHERE revision_id IN (SELECT id FROM revisions WHERE base_id IS NOT NULL)`);
      await db.query(`INSERT INTO ${table.rows} (revision_id, ${table.columns}) SELECT revision_id, ${table.columns} FROM resolved`);
      await db.query(`DROP TABLE resolved`);
      await db.query(`DROP VIEW ${table.view}`);
    }
    await db.query(`DROP INDEX revision_page_rows_sibling_slug_key`);
    await db.query(`DROP INDEX revision_page_rows_path_key`);
    await db.query(
      `CREATE UNIQUE INDEX revision_pages_sibling_slug_key ON revision_page_rows (revision_id, coalesce(parent_id, ''), slug) WHERE slug IS NOT NULL`,
    );
    await db.query(`CREATE UNIQUE INDEX revision_pages_path_key ON revision_page_rows (revision_id, path) WHERE path IS NOT NULL`);
    await db.query(`ALTER INDEX revision_page_rows_children_idx RENAME TO revision_pages_children_idx`);
    await db.query(`ALTER INDEX revision_page_rows_document_idx RENAME TO revision_pages_document_idx`);
    await db.query(`ALTER INDEX revision_file_rows_blob_idx RENAME TO revision_files_blob_idx`);
    await db.query(`ALTER INDEX revision_reusable_content_rows_document_idx RENAME TO revision_reusable_contents_document_idx`);
    await db.query(`ALTER INDEX revision_link_rows_status_idx RENAME TO revision_links_status_idx`);
    await db.query(`ALTER INDEX revision_link_rows_pages_idx RENAME TO revision_links_pages_idx`);
    for (const table of TABLES) {
      await db.query(`ALTER TABLE ${table.rows} DROP COLUMN deleted`);
      await db.query(`ALTER INDEX ${table.rows}_pkey RENAME TO ${table.view}_pkey`);
      await db.query(`ALTER TABLE ${table.rows} RENAME TO ${table.view}`);
    }
    await db.query(
      `ALTER TABLE revision_pages ADD FOREIGN KEY (revision_id, parent_id) REFERENCES revision_pages (revision_id, page_id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED`,
    );
    await db.query(`DROP INDEX revisions_base_idx`);
    await db.query(`ALTER TABLE revisions DROP COLUMN base_id`);
  }
}
