import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery of the audit log to integrations (the `audit_event` Quire extension event, docs/modules/audit.md):
 * - `integrations.events`: the extension events an integration asks for when it is published (`["audit_event"]`);
 *   the public events need no asking.
 * - `audit_event_deliveries`: per installation of such an integration, the last sealed event (`seq` of its
 *   organization's chain) handed to it; the delivery job reads each organization's chain after it, in batches.
 */
export class AuditEventDelivery1800000340000 implements MigrationInterface {
  name = 'AuditEventDelivery1800000340000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE integrations ADD COLUMN events jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await db.query(`
      CREATE TABLE audit_event_deliveries (
        installation_id text PRIMARY KEY REFERENCES integration_installations (id) ON DELETE CASCADE,
        organization_id text NOT NULL,
        last_seq bigint NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE audit_event_deliveries`);
    await db.query(`ALTER TABLE integrations DROP COLUMN events`);
  }
}
