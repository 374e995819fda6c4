import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The kept order of an organization's spaces and collections (`move` with `position.before/after`).
 * Spaces and collections share one sequence of positions per organization, so a pointer may name
 * either kind, and every list sorted by `(position, id)` shows the order the last move left.
 * Positions are spaced out, so a move usually writes one row; see ContentTreeRepository.
 */
export class ContentTreeOrder1763726420000 implements MigrationInterface {
  name = 'ContentTreeOrder1763726420000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE spaces ADD COLUMN position bigint NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE collections ADD COLUMN position bigint NOT NULL DEFAULT 0`);
    // Rows created before this migration keep their creation order.
    await db.query(`
      WITH items AS (
        SELECT id, 'space' AS kind, organization_id, created_at FROM spaces
        UNION ALL
        SELECT id, 'collection', organization_id, created_at FROM collections
      ),
      numbered AS (
        SELECT id, kind, row_number() OVER (PARTITION BY organization_id ORDER BY created_at, id) * 1024 AS position FROM items
      ),
      moved_spaces AS (
        UPDATE spaces s SET position = n.position FROM numbered n WHERE n.kind = 'space' AND n.id = s.id
      )
      UPDATE collections c SET position = n.position FROM numbered n WHERE n.kind = 'collection' AND n.id = c.id`);

    // Lists in the kept order: an organization's spaces, a collection's spaces, an organization's collections.
    await db.query(`CREATE INDEX spaces_organization_position_idx ON spaces (organization_id, position, id) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX spaces_parent_position_idx ON spaces (parent_id, position, id) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX collections_organization_position_idx ON collections (organization_id, position, id)`);
    await db.query(`CREATE INDEX collections_parent_position_idx ON collections (parent_id, position, id)`);
    // The access model looks grants up by the space or collection they are on.
    await db.query(`CREATE INDEX permission_grants_space_idx ON permission_grants (space_id) WHERE space_id IS NOT NULL`);
    await db.query(`CREATE INDEX permission_grants_collection_idx ON permission_grants (collection_id) WHERE collection_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX permission_grants_collection_idx`);
    await db.query(`DROP INDEX permission_grants_space_idx`);
    await db.query(`DROP INDEX collections_parent_position_idx`);
    await db.query(`DROP INDEX collections_organization_position_idx`);
    await db.query(`DROP INDEX spaces_parent_position_idx`);
    await db.query(`DROP INDEX spaces_organization_position_idx`);
    await db.query(`ALTER TABLE collections DROP COLUMN position`);
    await db.query(`ALTER TABLE spaces DROP COLUMN position`);
  }
}
