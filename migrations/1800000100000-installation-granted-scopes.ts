import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An installation keeps the scopes its installer granted (`granted_scopes`), instead of reading the
 * integration's manifest live: script tokens carry these. Existing installations are backfilled with
 * their integration's current scopes (what their tokens could do until now).
 */
export class InstallationGrantedScopes1800000100000 implements MigrationInterface {
  name = 'InstallationGrantedScopes1800000100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE integration_installations ADD COLUMN granted_scopes jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`UPDATE integration_installations n SET granted_scopes = i.scopes FROM integrations i WHERE i.id = n.integration_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE integration_installations DROP COLUMN granted_scopes`);
  }
}
