import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two fewer index entries for every audit event a write records (and for its new version when the
 * sealer chains it): an event is found by its id through the primary key, its `occurred_at` being the
 * time its UUIDv7 id carries (common/audit/uuid7.ts), so the index on `id` alone goes; the chain index
 * holds sealed events only (the ones a walk by `seq` reads), not every unsealed one under a null `seq`.
 */
export class AuditEventsLeanIndexes1800000350000 implements MigrationInterface {
  name = 'AuditEventsLeanIndexes1800000350000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX audit_events_id_idx`);
    await db.query(`DROP INDEX audit_events_chain_idx`);
    await db.query(`CREATE INDEX audit_events_chain_idx ON audit_events (organization_id, seq) WHERE seq IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX audit_events_chain_idx`);
    await db.query(`CREATE INDEX audit_events_chain_idx ON audit_events (organization_id, seq)`);
    await db.query(`CREATE INDEX audit_events_id_idx ON audit_events (id)`);
  }
}
