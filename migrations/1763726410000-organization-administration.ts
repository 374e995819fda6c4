import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organization administration: SAML providers, translation settings, server-generated secrets,
 * and the indexes behind the member and team lists.
 */
export class OrganizationAdministration1763726410000 implements MigrationInterface {
  name = 'OrganizationAdministration1763726410000';

  async up(db: QueryRunner): Promise<void> {
    // Member lists: sorted by join time or last-seen time within an organization, unique with user_id.
    await db.query(`CREATE INDEX memberships_organization_joined_idx ON memberships (organization_id, joined_at, user_id)`);
    await db.query(`CREATE INDEX memberships_organization_seen_idx ON memberships (organization_id, last_seen_at, user_id) WHERE last_seen_at IS NOT NULL`);
    // Team member lists, oldest first; the primary key (team_id, user_id) does not cover the sort.
    await db.query(`CREATE INDEX team_members_team_added_idx ON team_members (team_id, added_at, user_id)`);

    await db.query(`
      CREATE TABLE saml_providers (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 30),
        entity_id text NOT NULL CHECK (char_length(entity_id) BETWEEN 1 AND 1024),
        certificate text NOT NULL CHECK (char_length(certificate) BETWEEN 1 AND 10000),
        sso_url text NOT NULL CHECK (char_length(sso_url) BETWEEN 1 AND 2048),
        -- deleting the team keeps the provider, without a default team
        default_team_id text REFERENCES teams (id) ON DELETE SET NULL,
        default_role text CHECK (default_role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX saml_providers_organization_idx ON saml_providers (organization_id, created_at, id)`);
    await db.query(`CREATE INDEX saml_providers_default_team_idx ON saml_providers (default_team_id) WHERE default_team_id IS NOT NULL`);

    await db.query(`
      CREATE TABLE translation_settings (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 100),
        languages text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX translation_settings_organization_idx ON translation_settings (organization_id, created_at, id)`);

    // Secrets the server generates once and every replica shares (e.g. the visitor-claims signing key
    // when SIGNING_SECRET is unset).
    await db.query(`
      CREATE TABLE server_secrets (
        name text PRIMARY KEY,
        value text NOT NULL CHECK (char_length(value) >= 32),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE server_secrets`);
    await db.query(`DROP TABLE translation_settings`);
    await db.query(`DROP TABLE saml_providers`);
    await db.query(`DROP INDEX team_members_team_added_idx`);
    await db.query(`DROP INDEX memberships_organization_seen_idx`);
    await db.query(`DROP INDEX memberships_organization_joined_idx`);
  }
}
