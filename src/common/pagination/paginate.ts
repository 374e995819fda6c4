import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { CursorValue, decodeCursor, encodeCursor, invalidCursor, isDataException } from './cursor';
import type { ListQueryDto } from './list-query.dto';

/** The list envelope of every paginated response, before items are presented. */
export interface Page<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

export interface KeysetOptions<T> {
  /** Names the list and its sort, e.g. `members:joinedAt:desc`; a cursor only works on its own list. */
  list: string;
  /** Sort columns as SQL expressions, most significant first; together they must be unique. */
  columns: string[];
  direction: 'ASC' | 'DESC';
  /** Reads the sort-key values of a fetched row, in the order of `columns`. */
  keyOf: (row: T) => (CursorValue | Date)[];
  /** How rows are fetched: entities by default; pass a function to read raw or custom rows. */
  fetch?: (qb: SelectQueryBuilder<ObjectLiteral>) => Promise<T[]>;
}

/**
 * Keyset pagination over a filtered query: the cost of a page does not depend on its depth, and
 * rows inserted while a client walks the list never shift it. Reads `limit + 1` rows to know
 * whether another page follows. `count` is the total of the filtered query.
 */
export async function paginate<T extends ObjectLiteral>(
  query: SelectQueryBuilder<ObjectLiteral>,
  { page, limit }: Pick<ListQueryDto, 'page' | 'limit'>,
  options: KeysetOptions<T>,
): Promise<Page<T>> {
  const { columns, direction, list } = options;
  const count = await query.clone().getCount();

  const rows = query.clone();
  if (page) {
    const key = decodeCursor(page, list, columns.length);
    const names = key.map((_, index) => `:cursor${index}`);
    const params = Object.fromEntries(key.map((value, index) => [`cursor${index}`, value]));
    rows.andWhere(`(${columns.join(', ')}) ${direction === 'ASC' ? '>' : '<'} (${names.join(', ')})`, params);
  }
  rows.orderBy(columns[0], direction);
  for (const column of columns.slice(1)) rows.addOrderBy(column, direction);
  rows.limit(limit + 1);

  let fetched: T[];
  try {
    fetched = options.fetch ? await options.fetch(rows) : ((await rows.getMany()) as T[]);
  } catch (error) {
    // A cursor of this list whose values do not fit its columns (forged: a string for a timestamp).
    if (page && isDataException(error)) throw invalidCursor();
    throw error;
  }
  const items = fetched.slice(0, limit);
  const result: Page<T> = { items, count };
  if (fetched.length > limit) {
    const last = options.keyOf(items[items.length - 1]).map((value) => (value instanceof Date ? value.toISOString() : value));
    result.next = { page: encodeCursor(list, last) };
  }
  return result;
}

/** Presents each item of a page, keeping the envelope. */
export function mapPage<T, R>(page: Page<T>, present: (item: T) => R): { items: R[]; count: number; next?: { page: string } } {
  return { ...page, items: page.items.map(present) };
}
