import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EntityManager } from 'typeorm';

/** A value of a row sent by `copyRows`: jsonb values go through `jsonb`, text arrays through `textArray`. */
export type CopyValue = string | number | boolean | Date | null | undefined;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
// Rows per chunk of text handed to the stream.
const ROWS_PER_CHUNK = 1000;

/** One field in COPY's text format (`\N` for null). */
export function copyField(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return value.toISOString();
  return value.replace(/[\\\n\r\t]/g, (char) => ESCAPES[char]);
}

/** A `jsonb` value (null stays SQL null). */
export function jsonb(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A `text[]` value as PostgreSQL's array literal (every element quoted). */
export function textArray(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`).join(',')}}`;
}

/**
 * Inserts `rows` into `table` with `COPY … FROM STDIN` on the manager's connection (in its
 * transaction, if it has one): PostgreSQL parses COPY's text in about half the time it takes to turn
 * one JSON parameter into rows, and no statement carries the whole batch as one value.
 */
export async function copyRows(em: EntityManager, table: string, columns: string[], rows: CopyValue[][]): Promise<void> {
  if (rows.length === 0) return;
  const runner = em.queryRunner ?? em.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PoolClient;
    const copy = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
    await pipeline(Readable.from(chunks(rows)), copy);
  } finally {
    if (!em.queryRunner) await runner.release();
  }
}

function* chunks(rows: CopyValue[][]): Generator<string> {
  for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
    let text = '';
    for (const row of rows.slice(i, i + ROWS_PER_CHUNK)) text += `${row.map(copyField).join('\t')}\n`;
    yield text;
  }
}
