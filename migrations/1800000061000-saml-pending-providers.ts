import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SAML providers can be created with a label only (section 4.15) and configured later: the entity ID,
 * certificate and sign-in URL become nullable, and `status` is derived from them by PostgreSQL, so it
 * can never disagree with what is stored (`active` once all three are set, else `pending`).
 */
/** The expression of `saml_providers.status`; the entity declares the same (`SAML_STATUS_SQL`). */
const STATUS = `CASE WHEN entity_id IS NOT NULL AND certificate IS NOT NULL AND sso_url IS NOT NULL THEN 'active' ELSE 'pending' END`;

export class SamlPendingProviders1800000061000 implements MigrationInterface {
  name = 'SamlPendingProviders1800000061000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE saml_providers
        ALTER COLUMN entity_id DROP NOT NULL,
        ALTER COLUMN certificate DROP NOT NULL,
        ALTER COLUMN sso_url DROP NOT NULL,
        DROP COLUMN status`);
    await db.query(`ALTER TABLE saml_providers ADD COLUMN status text NOT NULL GENERATED ALWAYS AS (${STATUS}) STORED`);
    // TypeORM keeps the expressions of generated columns in its own table, which its schema builder
    // (migration:generate) reads to compare them with the entities'.
    await db.query(`CREATE TABLE IF NOT EXISTS typeorm_metadata (
      "type" varchar NOT NULL, "database" varchar, "schema" varchar, "table" varchar, "name" varchar, "value" text)`);
    await db.query(
      `INSERT INTO typeorm_metadata ("type", "database", "schema", "table", "name", "value") VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'saml_providers', 'status', $1)`,
      [STATUS],
    );
  }

  async down(db: QueryRunner): Promise<void> {
    // Providers that were never configured could not exist before: they go.
    await db.query(`DELETE FROM saml_providers WHERE entity_id IS NULL OR certificate IS NULL OR sso_url IS NULL`);
    await db.query(`DELETE FROM typeorm_metadata WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'saml_providers' AND "name" = 'status'`);
    await db.query(`ALTER TABLE saml_providers DROP COLUMN status`);
    await db.query(`
      ALTER TABLE saml_providers
        ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending')),
        ALTER COLUMN entity_id SET NOT NULL,
        ALTER COLUMN certificate SET NOT NULL,
        ALTER COLUMN sso_url SET NOT NULL`);
  }
}
