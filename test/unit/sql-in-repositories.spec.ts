import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Repositories own the SQL (docs/architecture.md, "A module"): a database call (`em.query`,
 * `createQueryBuilder`, `getRepository`, an EntityManager's `find…`/`insert`/`update`/`delete`…) in a
 * file of a domain module that is not a `*.repository.ts` is refused, except in the files below, each
 * with its count of calls. The list only shrinks: a new file with calls fails, a listed file with more
 * calls fails, and a listed file with fewer fails until its count is lowered (or its entry removed).
 */
const MODULES = join(__dirname, '..', '..', 'src', 'modules');
const CALL =
  /\.(?:query|createQueryBuilder|getRepository)\(|\b(?:em|manager|entityManager|dataSource)\.(?:find\w*|insert|update|delete|save|remove|count\w*|exists\w*|upsert|increment|decrement|softDelete|restore)\(/g;

/** What may still issue database calls outside a repository, and why. */
const ALLOWED: Record<string, { calls: number; why: string }> = {
  // The write path of revisions: bulk statements over one revision's rows (unnest, COPY, layers), where the
  // shape of the statement is the writer's algorithm; kept beside it so the cost stays readable in one file.
  'content/revision-writer.ts': { calls: 9, why: 'writer: bulk inserts of a revision (unnest, pre-stored bodies)' },
  'content/revision-delta-writer.ts': { calls: 15, why: 'writer: the rows of a layer over its base, read and written by key' },
  'content/revision-delta-links.ts': { calls: 10, why: 'writer: link rows of a layer, reclassified in SQL' },
  'content/copy-rows.ts': { calls: 1, why: 'writer: COPY FROM STDIN of a revision’s rows' },
  // Not moved yet.
  'spaces/space-retention.service.ts': { calls: 1, why: 'not moved yet: the purge holds a transaction-level advisory lock for its whole run' },
  'published/site-auth/site-token-keys.ts': { calls: 2, why: 'not moved yet' },
  'integrations/script-auth/script-scope.guard.ts': { calls: 2, why: 'not moved yet (a script token’s scope, on the hot path)' },
  'integrations/script-auth/script-authenticator.ts': { calls: 2, why: 'not moved yet (authentication, on the hot path)' },
  'integrations/integrations.service.ts': { calls: 2, why: 'not moved yet' },
  'published/snapshot-freshness.ts': { calls: 1, why: 'LISTEN on a connection of its own, not a query of a table' },
  'published/site-auth/site-token.guard.ts': { calls: 1, why: 'not moved yet (the site-token guard, on the hot path)' },
  'integrations/installations.service.ts': { calls: 1, why: 'not moved yet' },
  'admin/admin.service.ts': { calls: 1, why: 'not moved yet: the advisory lock serialising bootstrap' },
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Database calls per file of the domain modules outside repositories. */
function callsOutsideRepositories(): Record<string, number> {
  const found: Record<string, number> = {};
  for (const file of files(MODULES)) {
    if (file.endsWith('.repository.ts')) continue;
    const calls = readFileSync(file, 'utf8').match(CALL)?.length ?? 0;
    if (calls > 0) found[relative(MODULES, file)] = calls;
  }
  return found;
}

describe('SQL only in repositories', () => {
  it('recognises the database calls it counts', () => {
    const samples = [
      'await em.query(`SELECT 1`)',
      'this.dataSource.query(`x`)',
      'manager.createQueryBuilder()',
      'em.getRepository(Site).find()',
      'em.insert(Site, row)',
      'await em.findOneByOrFail(Space, { id })',
      'em.delete(SiteShareLink, { id })',
      'this.dataSource.createQueryBuilder()',
    ];
    for (const sample of samples) expect(sample.match(CALL)).not.toBeNull();
    expect('this.writes.run(caller, id, (em) => this.rows.update(id, changes, em))'.match(CALL)).toBeNull();
  });

  it('outside *.repository.ts, are in the allowed files only, never more of them', () => {
    const found = callsOutsideRepositories();
    const unexpected = Object.entries(found)
      .filter(([file, calls]) => !ALLOWED[file] || calls > ALLOWED[file].calls)
      .map(([file, calls]) => `${file}: ${calls} call(s) (move them into the module's repository)`);
    expect(unexpected).toEqual([]);
  });

  it('the allow-list only shrinks: an entry names what is left', () => {
    const found = callsOutsideRepositories();
    const stale = Object.entries(ALLOWED)
      .filter(([file, { calls }]) => (found[file] ?? 0) < calls)
      .map(([file, { calls }]) => `${file}: ${found[file] ?? 0} call(s), listed with ${calls} (lower its count or remove it)`);
    expect(stale).toEqual([]);
  });
});
