import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Integration events are purged once past `INTEGRATION_EVENT_RETENTION_DAYS` (renders, public-endpoint
 * calls and script fetches are events too, so the table grows with traffic): the purge deletes by age.
 */
export class IntegrationEventsRetention1800000110000 implements MigrationInterface {
  name = 'IntegrationEventsRetention1800000110000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX integration_events_created_idx ON integration_events (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX integration_events_created_idx`);
  }
}
