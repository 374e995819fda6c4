import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log's filter indexes move from the events to their chain links (decision 0076). A write then inserts its
 * event with the primary key only; the sealer, one writer inserting a batch in one statement, gives each link the
 * event's `action`, `actor_id` and `target_id` and the five filter index entries. A filtered page reads the links'
 * indexes for sealed events and the queue (`audit_unsealed`) for the rest.
 */
export class AuditFiltersOnLinks1800000410000 implements MigrationInterface {
  name = 'AuditFiltersOnLinks1800000410000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_chain_links ADD COLUMN action text, ADD COLUMN actor_id text, ADD COLUMN target_id text`);
    await db.query(
      `UPDATE audit_chain_links l SET action = e.action, actor_id = e.actor_id, target_id = e.target_id
       FROM audit_events e WHERE e.organization_id = l.organization_id AND e.occurred_at = l.occurred_at AND e.id = l.id`,
    );
    // A link whose event is gone (deleted, which verify names) keeps empty filter values: no filter finds it, as before.
    await db.query(`UPDATE audit_chain_links SET action = '', actor_id = '', target_id = '' WHERE action IS NULL`);
    await db.query(`ALTER TABLE audit_chain_links ALTER COLUMN action SET NOT NULL, ALTER COLUMN actor_id SET NOT NULL, ALTER COLUMN target_id SET NOT NULL`);
    for (const [name, columns] of FILTER_INDEXES) {
      await db.query(`DROP INDEX audit_events_${name}_idx`);
      await db.query(`CREATE INDEX audit_chain_links_${name}_idx ON audit_chain_links (${columns}, occurred_at, id)`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const [name, columns] of FILTER_INDEXES) {
      await db.query(`DROP INDEX audit_chain_links_${name}_idx`);
      await db.query(`CREATE INDEX audit_events_${name}_idx ON audit_events (${columns}, occurred_at, id)`);
    }
    await db.query(`ALTER TABLE audit_chain_links DROP COLUMN action, DROP COLUMN actor_id, DROP COLUMN target_id`);
  }
}

/** The filters' indexes (each ends in `occurred_at, id`, the list's order), as 1800000300000 made them on the events. */
const FILTER_INDEXES: [string, string][] = [
  ['action', 'organization_id, action'],
  ['actor', 'organization_id, actor_id'],
  ['target', 'organization_id, target_id'],
  ['actor_action', 'organization_id, actor_id, action'],
  ['target_action', 'organization_id, target_id, action'],
];
