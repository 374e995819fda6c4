import { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, organizations, memberships and API tokens. */
export class Identity1763726400000 implements MigrationInterface {
  name = 'Identity1763726400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        display_name text NOT NULL,
        email text NOT NULL,
        photo_url text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`);

    await db.query(`
      CREATE TABLE organizations (
        id text PRIMARY KEY,
        title text NOT NULL,
        email_domains text[] NOT NULL DEFAULT '{}',
        hostname text UNIQUE,
        type text NOT NULL DEFAULT 'business' CHECK (type IN ('business', 'community')),
        use_case text,
        community_type text,
        default_role text CHECK (default_role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        default_site_id text,
        sso boolean NOT NULL DEFAULT false,
        ai boolean NOT NULL DEFAULT false,
        invite_links boolean NOT NULL DEFAULT false,
        logo_url text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    await db.query(`
      CREATE TABLE memberships (
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        joined_at timestamptz(3) NOT NULL DEFAULT now(),
        last_seen_at timestamptz(3),
        sso boolean NOT NULL DEFAULT false,
        disabled boolean NOT NULL DEFAULT false,
        PRIMARY KEY (organization_id, user_id)
      )`);
    // "Organizations of a user", paginated by (joined_at, organization_id).
    await db.query(`CREATE INDEX memberships_user_idx ON memberships (user_id, joined_at, organization_id)`);

    await db.query(`
      CREATE TABLE api_tokens (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        label text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_used_at timestamptz(3)
      )`);
    await db.query(`CREATE INDEX api_tokens_user_idx ON api_tokens (user_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE api_tokens`);
    await db.query(`DROP TABLE memberships`);
    await db.query(`DROP TABLE organizations`);
    await db.query(`DROP TABLE users`);
  }
}
