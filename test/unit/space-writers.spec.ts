import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * `SpaceUnitOfWork` is the only code that changes a `spaces` row (through `space-writes.repository.ts`,
 * which only it uses): a statement writing `spaces` anywhere else would skip the row lock and the
 * access re-check. The retention purge's DELETE is the one exception (it removes expired rows,
 * skipping locked ones, and answers to no caller).
 */
const SRC = join(__dirname, '..', '..', 'src');
const WRITES = [
  /UPDATE\s+spaces\b/i,
  /INSERT\s+INTO\s+spaces\b/i,
  /DELETE\s+FROM\s+spaces\b/i,
  /\.(update|insert|upsert|delete|save)\(\s*Space\s*,/,
  /\.(update|delete)\(\)\s*\.from\(\s*Space\s*\)/,
  /\.update\(\s*Space\s*\)/,
];
const ALLOWED = new Map([
  ['modules/space-writes/space-writes.repository.ts', 'the unit of work’s statements'],
  ['modules/spaces/spaces.repository.ts', 'purgeBatch: the retention purge'],
]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('writers of the spaces table', () => {
  it('are the unit of work’s repository (and the retention purge) only', () => {
    const writers = files(SRC)
      .filter((file) => WRITES.some((pattern) => pattern.test(readFileSync(file, 'utf8').replace(/\s+/g, ' '))))
      .map((file) => relative(SRC, file));
    expect(writers.filter((file) => !ALLOWED.has(file))).toEqual([]);
    expect(writers).toContain('modules/space-writes/space-writes.repository.ts');
  });
});
