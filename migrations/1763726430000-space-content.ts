import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Space content, git-like: a revision is an immutable tree of pages and files. Bodies (documents)
 * and file bytes (blobs) are content-addressed by their SHA-256, so a new revision copies only its
 * tree rows and shares every unchanged body. Links are classified per revision; the search index
 * holds one row per page of each space's active revision.
 */
export class SpaceContent1763726430000 implements MigrationInterface {
  name = 'SpaceContent1763726430000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE revisions
        ADD COLUMN git jsonb,
        ADD COLUMN variables jsonb NOT NULL DEFAULT '{}',
        ADD CONSTRAINT revisions_type_check CHECK (type IN ('edits', 'merge', 'rollback', 'update', 'computed'))`);

    // A page body, stored once however many pages and revisions use it. Its sections and
    // tsvector are computed once, when the body is first stored.
    await db.query(`
      CREATE TABLE documents (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{64}$'),
        markdown text NOT NULL,
        tsv tsvector NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE document_sections (
        document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 0),
        anchor text NOT NULL,
        heading text NOT NULL,
        body text NOT NULL,
        tsv tsvector NOT NULL,
        PRIMARY KEY (document_id, position)
      )`);

    await db.query(`
      CREATE TABLE blobs (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{64}$'),
        data bytea NOT NULL,
        size bigint NOT NULL CHECK (size >= 0),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    await db.query(`
      CREATE TABLE revision_pages (
        revision_id text NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
        page_id text NOT NULL,
        parent_id text,
        position integer NOT NULL CHECK (position >= 0),
        kind text NOT NULL CHECK (kind IN ('document', 'group', 'link')),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 1000),
        emoji text CHECK (char_length(emoji) <= 50),
        icon text CHECK (char_length(icon) <= 50),
        slug text CHECK (char_length(slug) <= 100),
        path text,
        description text,
        layout jsonb,
        cover jsonb,
        hidden boolean NOT NULL DEFAULT false,
        no_index boolean NOT NULL DEFAULT false,
        no_robots_index boolean NOT NULL DEFAULT false,
        variables jsonb NOT NULL DEFAULT '{}',
        document_id text REFERENCES documents (id),
        link_target jsonb,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (revision_id, page_id),
        FOREIGN KEY (revision_id, parent_id) REFERENCES revision_pages (revision_id, page_id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        -- links have a target and no slug; documents and groups have a slug and a path
        CHECK ((kind = 'link') = (slug IS NULL)),
        CHECK ((slug IS NULL) = (path IS NULL)),
        CHECK ((kind = 'link') = (link_target IS NOT NULL)),
        CHECK (kind = 'document' OR document_id IS NULL)
      )`);
    // Slugs are unique among siblings, hence paths within a revision.
    await db.query(`CREATE UNIQUE INDEX revision_pages_sibling_slug_key ON revision_pages (revision_id, coalesce(parent_id, ''), slug) WHERE slug IS NOT NULL`);
    await db.query(`CREATE UNIQUE INDEX revision_pages_path_key ON revision_pages (revision_id, path) WHERE path IS NOT NULL`);
    // Children of a page in order: tree reads, and the walk that gives search results their ancestors.
    await db.query(`CREATE INDEX revision_pages_children_idx ON revision_pages (revision_id, parent_id, position)`);
    await db.query(`CREATE INDEX revision_pages_document_idx ON revision_pages (document_id) WHERE document_id IS NOT NULL`);

    await db.query(`
      CREATE TABLE revision_files (
        revision_id text NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
        file_id text NOT NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
        content_type text NOT NULL,
        size bigint NOT NULL CHECK (size >= 0),
        width integer,
        height integer,
        blob_id text NOT NULL REFERENCES blobs (id),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (revision_id, file_id),
        CHECK ((width IS NULL) = (height IS NULL))
      )`);
    await db.query(`CREATE INDEX revision_files_blob_idx ON revision_files (blob_id)`);

    await db.query(`
      CREATE TABLE revision_reusable_contents (
        revision_id text NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
        reusable_content_id text NOT NULL,
        title text NOT NULL,
        document_id text REFERENCES documents (id),
        PRIMARY KEY (revision_id, reusable_content_id)
      )`);
    await db.query(`CREATE INDEX revision_reusable_contents_document_idx ON revision_reusable_contents (document_id) WHERE document_id IS NOT NULL`);

    // One row per distinct link target of a revision, with the pages it appears on (tree order).
    await db.query(`
      CREATE TABLE revision_links (
        revision_id text NOT NULL REFERENCES revisions (id) ON DELETE CASCADE,
        target_key text NOT NULL,
        status text NOT NULL CHECK (status IN ('ok', 'broken', 'in-app')),
        target jsonb NOT NULL,
        pages text[] NOT NULL CHECK (cardinality(pages) > 0),
        PRIMARY KEY (revision_id, target_key)
      )`);
    await db.query(`CREATE INDEX revision_links_status_idx ON revision_links (revision_id, status, target_key)`);
    await db.query(`CREATE INDEX revision_links_pages_idx ON revision_links USING gin (pages)`);

    // The search index of each space's active revision. The space FK is deferred because a
    // duplicated space's content is indexed before the space row is inserted.
    await db.query(`
      CREATE TABLE search_pages (
        space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        page_id text NOT NULL,
        revision_id text NOT NULL,
        document_id text,
        title text NOT NULL,
        path text NOT NULL,
        description text NOT NULL DEFAULT '',
        ancestors text[] NOT NULL DEFAULT '{}',
        tsv tsvector NOT NULL,
        PRIMARY KEY (space_id, page_id)
      )`);
    await db.query(`CREATE INDEX search_pages_tsv_idx ON search_pages USING gin (tsv)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE search_pages`);
    await db.query(`DROP TABLE revision_links`);
    await db.query(`DROP TABLE revision_reusable_contents`);
    await db.query(`DROP TABLE revision_files`);
    await db.query(`DROP TABLE revision_pages`);
    await db.query(`DROP TABLE blobs`);
    await db.query(`DROP TABLE document_sections`);
    await db.query(`DROP TABLE documents`);
    await db.query(`ALTER TABLE revisions DROP CONSTRAINT revisions_type_check, DROP COLUMN variables, DROP COLUMN git`);
  }
}
