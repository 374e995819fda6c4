import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pending invitations: inviting the e-mail of an existing user no longer makes them a member; it
 * leaves an invitation that only they can accept (or decline) with their own token.
 */
export class OrganizationInvites1800000060000 implements MigrationInterface {
  name = 'OrganizationInvites1800000060000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE organization_invites (
        id text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        -- null: the invitee joins as a guest
        role text CHECK (role IN ('admin', 'create', 'review', 'edit', 'comment', 'read')),
        sso boolean NOT NULL DEFAULT false,
        invited_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        -- one pending invitation per person and organization: inviting again updates it
        CONSTRAINT organization_invites_organization_user_key UNIQUE (organization_id, user_id)
      )`);
    // The invitee's list, oldest first.
    await db.query(`CREATE INDEX organization_invites_user_idx ON organization_invites (user_id, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE organization_invites`);
  }
}
