import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Integrations (sections 2.21–2.23): published integrations with their script and icon, their
 * installations on organizations, spaces and sites, their events (status and trace), and the
 * short-lived tokens handed to their scripts.
 */
export class Integrations1800000077000 implements MigrationInterface {
  name = 'Integrations1800000077000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE integrations (
        id text PRIMARY KEY,
        name text NOT NULL UNIQUE,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        version integer NOT NULL DEFAULT 1,
        runtime text NOT NULL DEFAULT 'v1',
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        summary text,
        visibility text NOT NULL DEFAULT 'private',
        target text NOT NULL DEFAULT 'all',
        scopes jsonb NOT NULL DEFAULT '[]',
        categories jsonb NOT NULL DEFAULT '[]',
        blocks jsonb NOT NULL DEFAULT '[]',
        content_sources jsonb NOT NULL DEFAULT '[]',
        external_links jsonb NOT NULL DEFAULT '[]',
        configurations jsonb NOT NULL DEFAULT '{}',
        secrets jsonb NOT NULL DEFAULT '{}',
        content_security_policy jsonb,
        icon bytea,
        preview_images jsonb NOT NULL DEFAULT '[]',
        has_icon boolean NOT NULL DEFAULT false,
        preview_count integer NOT NULL DEFAULT 0,
        script text NOT NULL,
        signing_secret text NOT NULL,
        dev_tunnel_url text,
        dev_all boolean NOT NULL DEFAULT false,
        dev_user_id text REFERENCES users (id) ON DELETE SET NULL,
        dev_expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX integrations_organization_idx ON integrations (organization_id)`);
    await db.query(`CREATE INDEX integrations_list_idx ON integrations (name)`);
    await db.query(`
      CREATE TABLE integration_installations (
        id text PRIMARY KEY,
        integration_id text NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'active',
        configuration jsonb NOT NULL DEFAULT '{}',
        external_ids jsonb NOT NULL DEFAULT '[]',
        space_selection text NOT NULL DEFAULT 'selected',
        site_selection text NOT NULL DEFAULT 'selected',
        installed_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        UNIQUE (integration_id, organization_id)
      )`);
    await db.query(`CREATE INDEX integration_installations_org_idx ON integration_installations (organization_id)`);
    for (const [table, column, parent] of [
      ['integration_space_installations', 'space_id', 'spaces'],
      ['integration_site_installations', 'site_id', 'sites'],
    ]) {
      await db.query(`
        CREATE TABLE ${table} (
          installation_id text NOT NULL REFERENCES integration_installations (id) ON DELETE CASCADE,
          ${column} text NOT NULL REFERENCES ${parent} (id) ON DELETE CASCADE,
          status text NOT NULL DEFAULT 'active',
          configuration jsonb NOT NULL DEFAULT '{}',
          external_ids jsonb NOT NULL DEFAULT '[]',
          created_at timestamptz(3) NOT NULL DEFAULT now(),
          updated_at timestamptz(3) NOT NULL DEFAULT now(),
          PRIMARY KEY (installation_id, ${column})
        )`);
      await db.query(`CREATE INDEX ${table}_target_idx ON ${table} (${column})`);
    }
    await db.query(`
      CREATE TABLE integration_events (
        id text PRIMARY KEY,
        integration_id text NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
        installation_id text REFERENCES integration_installations (id) ON DELETE SET NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed')),
        logs jsonb NOT NULL DEFAULT '[]',
        error text,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX integration_events_list_idx ON integration_events (integration_id, created_at, id)`);
    await db.query(`
      CREATE TABLE integration_tokens (
        token_hash text PRIMARY KEY,
        integration_id text NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
        installation_id text REFERENCES integration_installations (id) ON DELETE CASCADE,
        expires_at timestamptz(3) NOT NULL
      )`);
    await db.query(`CREATE INDEX integration_tokens_expiry_idx ON integration_tokens (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE integration_tokens`);
    await db.query(`DROP TABLE integration_events`);
    await db.query(`DROP TABLE integration_site_installations`);
    await db.query(`DROP TABLE integration_space_installations`);
    await db.query(`DROP TABLE integration_installations`);
    await db.query(`DROP TABLE integrations`);
  }
}
