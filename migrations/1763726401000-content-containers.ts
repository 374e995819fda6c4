import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared skeleton that the organization, spaces and content modules build on: teams and
 * their members, collections, spaces, revisions and explicit permission grants. Each module adds its own columns and tables
 * in later migrations.
 */
export class ContentContainers1763726401000 implements MigrationInterface {
  name = 'ContentContainers1763726401000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE teams (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 64),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX teams_organization_idx ON teams (organization_id, created_at, id)`);

    // A team member is always an organization member: leaving the organization leaves its teams.
    await db.query(`
      CREATE TABLE team_members (
        team_id text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        organization_id text NOT NULL,
        user_id text NOT NULL,
        role text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
        added_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (team_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX team_members_user_idx ON team_members (organization_id, user_id)`);

    await db.query(`
      CREATE TABLE collections (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        parent_id text REFERENCES collections (id) ON DELETE RESTRICT,
        title text NOT NULL,
        description text,
        default_level text CHECK (default_level IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX collections_organization_idx ON collections (organization_id, parent_id)`);

    await db.query(`
      CREATE TABLE spaces (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        parent_id text REFERENCES collections (id) ON DELETE RESTRICT,
        title text NOT NULL DEFAULT '' CHECK (char_length(title) <= 50),
        emoji text NOT NULL DEFAULT '' CHECK (char_length(emoji) <= 50),
        visibility text NOT NULL DEFAULT 'private'
          CHECK (visibility IN ('public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private')),
        edit_mode text NOT NULL DEFAULT 'live' CHECK (edit_mode IN ('live', 'locked')),
        default_level text CHECK (default_level IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        revision_id text NOT NULL,
        created_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        deleted_at timestamptz(3)
      )`);
    await db.query(`CREATE INDEX spaces_organization_idx ON spaces (organization_id, created_at, id) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX spaces_parent_idx ON spaces (parent_id) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX spaces_deleted_idx ON spaces (deleted_at) WHERE deleted_at IS NOT NULL`);

    // Immutable snapshots of a space's content; the content module adds pages, files and the rest.
    await db.query(`
      CREATE TABLE revisions (
        id text PRIMARY KEY,
        space_id text NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
        parents text[] NOT NULL DEFAULT '{}',
        type text NOT NULL DEFAULT 'edits',
        created_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX revisions_space_idx ON revisions (space_id, created_at, id)`);
    // A space and its first revision point at each other: checked at commit, so both insert in one transaction.
    await db.query(`ALTER TABLE spaces ADD CONSTRAINT spaces_revision_fk FOREIGN KEY (revision_id) REFERENCES revisions (id) DEFERRABLE INITIALLY DEFERRED`);

    // Explicit grants of a role on a space or a collection, to a user or a team.
    await db.query(`
      CREATE TABLE permission_grants (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        space_id text REFERENCES spaces (id) ON DELETE CASCADE,
        collection_id text REFERENCES collections (id) ON DELETE CASCADE,
        user_id text,
        team_id text REFERENCES teams (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CHECK (num_nonnulls(space_id, collection_id) = 1),
        CHECK (num_nonnulls(user_id, team_id) = 1),
        -- a user grant ends when the user leaves the organization
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await db.query(
      `CREATE UNIQUE INDEX permission_grants_space_user_key ON permission_grants (space_id, user_id) WHERE space_id IS NOT NULL AND user_id IS NOT NULL`,
    );
    await db.query(
      `CREATE UNIQUE INDEX permission_grants_space_team_key ON permission_grants (space_id, team_id) WHERE space_id IS NOT NULL AND team_id IS NOT NULL`,
    );
    await db.query(
      `CREATE UNIQUE INDEX permission_grants_collection_user_key ON permission_grants (collection_id, user_id) WHERE collection_id IS NOT NULL AND user_id IS NOT NULL`,
    );
    await db.query(
      `CREATE UNIQUE INDEX permission_grants_collection_team_key ON permission_grants (collection_id, team_id) WHERE collection_id IS NOT NULL AND team_id IS NOT NULL`,
    );
    await db.query(`CREATE INDEX permission_grants_user_idx ON permission_grants (user_id) WHERE user_id IS NOT NULL`);
    await db.query(`CREATE INDEX permission_grants_team_idx ON permission_grants (team_id) WHERE team_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE permission_grants`);
    await db.query(`ALTER TABLE spaces DROP CONSTRAINT spaces_revision_fk`);
    await db.query(`DROP TABLE revisions`);
    await db.query(`DROP TABLE spaces`);
    await db.query(`DROP TABLE collections`);
    await db.query(`DROP TABLE team_members`);
    await db.query(`DROP TABLE teams`);
  }
}
