import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenAPI specifications of an organization (issue 16): specs by slug, their immutable versions, and
 * the versions' content stored once per distinct content (keyed by its SHA-256), so a spec that goes
 * back to an earlier content, or two specs with the same document, keep one copy.
 */
export class OpenApiSpecs1800000075000 implements MigrationInterface {
  name = 'OpenApiSpecs1800000075000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE openapi_spec_contents (
        hash text PRIMARY KEY,
        format text NOT NULL CHECK (format IN ('json', 'yaml')),
        raw_text text NOT NULL,
        filesystem jsonb NOT NULL CHECK (jsonb_typeof(filesystem) = 'object'),
        size integer NOT NULL CHECK (size >= 0),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE openapi_specs (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        slug text NOT NULL CHECK (slug ~ '^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$' AND length(slug) <= 100),
        source_url text,
        visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
        last_version_id text,
        last_processed_at timestamptz(3),
        created_by text REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT openapi_specs_slug_unique UNIQUE (organization_id, slug)
      )`);
    await db.query(`
      CREATE TABLE openapi_spec_versions (
        id text PRIMARY KEY,
        spec_id text NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
        content_hash text NOT NULL REFERENCES openapi_spec_contents(hash),
        source_url text,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // The version list (newest first, keyset) and the lookup of a spec's versions by content.
    await db.query(`CREATE INDEX openapi_spec_versions_by_spec ON openapi_spec_versions (spec_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX openapi_spec_versions_by_content ON openapi_spec_versions (content_hash)`);
    await db.query(`
      ALTER TABLE openapi_specs ADD CONSTRAINT openapi_specs_last_version_fk
        FOREIGN KEY (last_version_id) REFERENCES openapi_spec_versions(id) ON DELETE SET NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE openapi_specs DROP CONSTRAINT openapi_specs_last_version_fk`);
    await db.query(`DROP TABLE openapi_spec_versions`);
    await db.query(`DROP TABLE openapi_specs`);
    await db.query(`DROP TABLE openapi_spec_contents`);
  }
}
