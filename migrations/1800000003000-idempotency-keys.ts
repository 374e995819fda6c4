import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of creates (`Idempotency-Key` on a POST answering 201), one row per caller and
 * key for 24 hours: the fingerprint of the first request and, once it finished, its answer.
 * `committed` means a transaction of the first request committed but its answer was not recorded
 * (the database went away in between): a retry must not run it again.
 */
export class IdempotencyKeys1800000003000 implements MigrationInterface {
  name = 'IdempotencyKeys1800000003000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        caller text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'committed', 'completed')),
        locked_until timestamptz(3),
        response_status integer,
        response_body jsonb,
        response_location text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (caller, key)
      )`);
    await db.query(`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
