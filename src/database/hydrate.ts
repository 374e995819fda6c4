import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * An entity from a raw row of its table or view (snake_case columns, as `SELECT *` gives them), the
 * way TypeORM's own reads hydrate it (column transformers, dates, JSON): for reads written as one
 * prepared statement (`queryPrepared`) instead of a query builder's.
 */
export function hydrate<T extends ObjectLiteral>(dataSource: DataSource, target: EntityTarget<T>, row: Record<string, unknown>): T {
  const metadata = dataSource.getMetadata(target);
  const entity = metadata.create() as T;
  for (const column of metadata.columns) {
    if (column.databaseName in row) column.setEntityValue(entity, dataSource.driver.prepareHydratedValue(row[column.databaseName], column));
  }
  return entity;
}
