import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Docs sites (sections 2.8–2.13): the site's own settings on `sites`, then what it is built from:
 * site spaces (a space shown at a path), sections, section groups and share links. Everything a site
 * owns cascades from `sites`; a site space also goes with its space when the space is purged.
 * `customization` (site) and `customization` (site space: its overrides) are null until set.
 * Siblings of one level of the structure share a `position` (renumbered on moves).
 */
export class SiteStructure1800000074000 implements MigrationInterface {
  name = 'SiteStructure1800000074000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE sites
        ADD COLUMN type text NOT NULL DEFAULT 'basic',
        ADD COLUMN visibility text NOT NULL DEFAULT 'public'
          CHECK (visibility IN ('public', 'unlisted', 'share-link', 'visitor-auth')),
        ADD COLUMN published boolean NOT NULL DEFAULT false,
        ADD COLUMN hostname text,
        ADD COLUMN basename text,
        ADD COLUMN proxy_origin text,
        ADD COLUMN adaptive_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN agents_context text NOT NULL DEFAULT 'included' CHECK (agents_context IN ('excluded', 'included')),
        ADD COLUMN adaptive_schema jsonb,
        ADD COLUMN adaptive_schema_updated_at timestamptz(3),
        ADD COLUMN customization jsonb`);
    await db.query(`CREATE UNIQUE INDEX sites_hostname_key ON sites (hostname) WHERE hostname IS NOT NULL`);

    await db.query(`
      CREATE TABLE site_section_groups (
        id text PRIMARY KEY,
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        title text NOT NULL,
        icon text,
        position integer NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX site_section_groups_site_idx ON site_section_groups (site_id, position, id)`);

    await db.query(`
      CREATE TABLE site_sections (
        id text PRIMARY KEY,
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        group_id text REFERENCES site_section_groups (id) ON DELETE SET NULL,
        title text NOT NULL,
        description text,
        path text NOT NULL,
        icon text,
        condition text,
        is_default boolean NOT NULL DEFAULT false,
        position integer NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT site_sections_path_key UNIQUE (site_id, path)
      )`);
    await db.query(`CREATE UNIQUE INDEX site_sections_one_default ON site_sections (site_id) WHERE is_default`);
    await db.query(`CREATE INDEX site_sections_site_idx ON site_sections (site_id, position, id)`);

    await db.query(`
      CREATE TABLE site_spaces (
        id text PRIMARY KEY,
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        section_id text REFERENCES site_sections (id) ON DELETE CASCADE,
        space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
        path text NOT NULL,
        condition text,
        is_default boolean NOT NULL DEFAULT false,
        position integer NOT NULL,
        customization jsonb,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // Unique within its section (the root level counts as one section).
    await db.query(`CREATE UNIQUE INDEX site_spaces_path_key ON site_spaces (site_id, coalesce(section_id, ''), path)`);
    await db.query(`CREATE UNIQUE INDEX site_spaces_one_default ON site_spaces (site_id, coalesce(section_id, '')) WHERE is_default`);
    await db.query(`CREATE INDEX site_spaces_site_idx ON site_spaces (site_id, position, id)`);
    await db.query(`CREATE INDEX site_spaces_space_idx ON site_spaces (space_id)`);

    await db.query(`
      CREATE TABLE site_share_links (
        id text PRIMARY KEY,
        site_id text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        name text NOT NULL,
        key text NOT NULL UNIQUE,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX site_share_links_site_idx ON site_share_links (site_id, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE site_share_links`);
    await db.query(`DROP TABLE site_spaces`);
    await db.query(`DROP TABLE site_sections`);
    await db.query(`DROP TABLE site_section_groups`);
    await db.query(`DROP INDEX sites_hostname_key`);
    await db.query(`
      ALTER TABLE sites
        DROP COLUMN type, DROP COLUMN visibility, DROP COLUMN published, DROP COLUMN hostname, DROP COLUMN basename,
        DROP COLUMN proxy_origin, DROP COLUMN adaptive_enabled, DROP COLUMN agents_context, DROP COLUMN adaptive_schema,
        DROP COLUMN adaptive_schema_updated_at, DROP COLUMN customization`);
  }
}
