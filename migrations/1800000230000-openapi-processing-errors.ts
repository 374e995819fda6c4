import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenAPI specs that parse but do not validate are kept (issue 27, point 6): a content keeps the
 * problems its validation found, a version its processing state, and a spec the state and problems
 * of its last processing (the public `processingState`, `lastProcessedErrors`,
 * `lastProcessedErrorCount`). Every row stored before was validated before it was stored, so the
 * backfill is `complete` with no problems; new specs and versions then start `pending`.
 */
export class OpenApiProcessingErrors1800000230000 implements MigrationInterface {
  name = 'OpenApiProcessingErrors1800000230000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE openapi_spec_contents
        ADD COLUMN validation_errors jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(validation_errors) = 'array'),
        ADD COLUMN validation_error_count integer NOT NULL DEFAULT 0 CHECK (validation_error_count >= 0)`);
    await db.query(`
      ALTER TABLE openapi_spec_versions
        ADD COLUMN processing_state text NOT NULL DEFAULT 'complete' CHECK (processing_state IN ('pending', 'progress', 'complete'))`);
    await db.query(`
      ALTER TABLE openapi_specs
        ADD COLUMN processing_state text NOT NULL DEFAULT 'complete' CHECK (processing_state IN ('pending', 'progress', 'complete')),
        ADD COLUMN last_processed_errors jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(last_processed_errors) = 'array'),
        ADD COLUMN last_processed_error_count integer NOT NULL DEFAULT 0 CHECK (last_processed_error_count >= 0)`);
    // The defaults above backfilled the rows there were; a row written from now on says what it is.
    await db.query(`ALTER TABLE openapi_spec_versions ALTER COLUMN processing_state SET DEFAULT 'pending'`);
    await db.query(`ALTER TABLE openapi_specs ALTER COLUMN processing_state SET DEFAULT 'pending'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE openapi_specs DROP COLUMN last_processed_error_count, DROP COLUMN last_processed_errors, DROP COLUMN processing_state`);
    await db.query(`ALTER TABLE openapi_spec_versions DROP COLUMN processing_state`);
    await db.query(`ALTER TABLE openapi_spec_contents DROP COLUMN validation_error_count, DROP COLUMN validation_errors`);
  }
}
