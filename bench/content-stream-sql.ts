/* The database side of GET /content: the route's ordered read before stored tree keys (a recursive
 * walk, a sort, a lateral lookup per page) against the read by key (one index scan, or a Merge
 * Append of two for a layer), and the plain SELECT of the same rows, interleaved, each run by a
 * plain client that reads every row at once. Per query: wall time and the CPU time of the backend
 * that ran it (/proc/<pid>/schedstat, ns; PostgreSQL on this machine), the figure a loaded machine
 * disturbs least. A 1k- and a BENCH_LARGE_PAGES-page space (default 10000), and a layer of 20
 * changed pages over the large one; SQL_ROUNDS rounds (default 9).
 * Standalone: `node -r @swc-node/register bench/content-stream-sql.ts`. */
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { RevisionDeltaWriter } from '../src/modules/content/revision-delta-writer';
import { documentPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { generatePages, median } from './content-stream-measures';
import { startBenchApp } from './in-process';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 10_000);
const ROUNDS = Number(process.env.SQL_ROUNDS ?? 9);

/** What the stream reads of each page (ContentRepository's TREE_ROW without the depth), `p` a page row. */
const PAGE_TEXT = `p.kind, p.page_id AS "pageId", p.path,
  '{"id":' || to_json(p.page_id)::text || ',"title":' || to_json(p.title)::text
    || CASE WHEN p.emoji <> '' THEN ',"emoji":' || to_json(p.emoji)::text ELSE '' END
    || CASE WHEN p.icon <> '' THEN ',"icon":' || to_json(p.icon)::text ELSE '' END AS head,
  (extract(epoch FROM p.created_at) * 1000)::float8 AS "createdMs", (extract(epoch FROM p.updated_at) * 1000)::float8 AS "updatedMs",
  CASE WHEN p.kind <> 'link' THEN ',"slug":' || coalesce(to_json(p.slug)::text, 'null') || ',"path":' || coalesce(to_json(p.path)::text, 'null') END AS "slugPath",
  CASE WHEN p.kind = 'link' THEN ',"hidden":' || p.hidden::text
    ELSE ',"hidden":' || p.hidden::text || ',"noIndex":' || p.no_index::text || ',"noRobotsIndex":' || p.no_robots_index::text
      || CASE WHEN p.kind <> 'group' AND p.description <> '' THEN ',"description":' || to_json(p.description)::text ELSE '' END END AS flags,
  CASE WHEN p.kind NOT IN ('link', 'group') THEN p.layout END AS layout, CASE WHEN p.kind NOT IN ('link', 'group') THEN p.cover END AS cover,
  CASE WHEN p.kind NOT IN ('link', 'group') AND p.variables <> '{}' THEN p.variables END AS variables,
  CASE WHEN p.kind = 'link' THEN p.link_target END AS "linkTarget", CASE WHEN p.kind NOT IN ('link', 'group') THEN p.document_id END AS "documentId",
  p.computed`;

/** GET /content's query before keys were stored (the cursor's query of 30ae60c). */
const WALK = `WITH RECURSIVE walk AS (
    SELECT p.page_id, p.kind, 0 AS depth, ARRAY[lpad(p.position::text, 10, '0') || p.page_id] AS sort
    FROM revision_pages p WHERE p.revision_id = $1 AND p.parent_id IS NULL
    UNION ALL
    SELECT c.page_id, c.kind, w.depth + 1, w.sort || (lpad(c.position::text, 10, '0') || c.page_id)
    FROM walk w JOIN revision_pages c ON c.revision_id = $1 AND c.parent_id = w.page_id
    WHERE w.kind <> 'link' AND c.kind <> 'group'
  )
  SELECT w.depth, page.*
  FROM (SELECT page_id, depth, sort FROM walk ORDER BY sort) w
  CROSS JOIN LATERAL (
    SELECT ${PAGE_TEXT}, CASE WHEN p.kind NOT IN ('link', 'group') THEN d.markdown END AS markdown
    FROM revision_pages p LEFT JOIN documents d ON d.id = p.document_id
    WHERE p.revision_id = $1 AND p.page_id = w.page_id
    OFFSET 0
  ) page
  ORDER BY w.sort`;

const DEPTH = `length(p.tree_key) - length(replace(p.tree_key, chr(1), '')) - 1 AS depth`;
const BODY = `CASE WHEN p.kind NOT IN ('link', 'group') THEN (SELECT d.markdown FROM documents d WHERE d.id = p.document_id) END AS markdown`;
const OWN = `SELECT * FROM revision_page_rows s WHERE s.revision_id = $1 AND NOT s.deleted AND s.tree_key > '' ORDER BY s.tree_key`;
/** GET /content's query now (ContentRepository.treeQuery): a full revision, and a layer over its base ($2). */
const KEYED_FULL = `SELECT ${DEPTH}, ${PAGE_TEXT}, ${BODY} FROM (${OWN}) p ORDER BY p.tree_key`;
const KEYED_LAYER = `SELECT ${DEPTH}, ${PAGE_TEXT}, ${BODY} FROM ((${OWN}) UNION ALL
  (SELECT * FROM revision_page_rows b WHERE b.revision_id = $2 AND NOT b.deleted AND b.tree_key > ''
     AND NOT EXISTS (SELECT 1 FROM revision_page_rows o WHERE o.revision_id = $1 AND o.page_id = b.page_id) ORDER BY b.tree_key)) p ORDER BY p.tree_key`;
/** The same rows unordered, as the SELECT floor of content-stream-measures reads them. */
const SELECT = `SELECT p.*, d.markdown FROM revision_pages p LEFT JOIN documents d ON d.id = p.document_id WHERE p.revision_id = $1`;

/** Wall and backend CPU time (ms) of one query, on a fresh connection (jit off, as Quire's). */
async function measured(url: string, sql: string, params: unknown[], settings: string[] = []): Promise<{ ms: number; cpu: number; rows: number }> {
  const client = new Client({ connectionString: url, options: '-c jit=off' });
  await client.connect();
  try {
    const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows as { pid: number }[];
    const cpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    await client.query('BEGIN');
    for (const setting of settings) await client.query(setting);
    const before = cpu();
    const started = performance.now();
    const result = await client.query(sql, params);
    const ms = performance.now() - started;
    const used = cpu() - before;
    await client.query('COMMIT');
    return { ms, cpu: used, rows: result.rowCount ?? 0 };
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app, user, membership, databaseUrl } = bench;
  try {
    const cases: { name: string; revisionId: string; baseId: string | null }[] = [];
    for (const count of [1000, LARGE]) {
      const space = (await app.get(SpacesService).create(user, membership, { title: `Generated ${count}` })).space;
      await generatePages(app.get(SpaceUnitOfWork), app.get(RevisionWriter), user, space.id, count);
      const [{ revision_id: revisionId }] = await app.get(DataSource).query('SELECT revision_id FROM spaces WHERE id = $1', [space.id]);
      cases.push({ name: `${count} pages, full`, revisionId, baseId: null });
      if (count !== LARGE) continue;
      // A layer: 20 pages' bodies changed, one of them (p0, 99 pages below it) moved last among the top pages: its subtree is carried.
      const layer = await app.get(DataSource).transaction((em: EntityManager) =>
        app.get(RevisionDeltaWriter).write(
          {
            spaceId: space.id,
            base: revisionId,
            parents: [revisionId],
            type: 'edits',
            createdBy: null,
            pages: Array.from({ length: 20 }, (_, i) =>
              documentPage({
                pageId: `p${i * 37}`,
                parentId: i * 37 < 100 ? null : `p${(i * 37) % 100}`,
                position: i === 0 ? 99_999 : i * 37,
                title: `Page ${i * 37} edited`,
                slug: `page-${i * 37}`,
                markdown: `Edited ${i}`,
              }),
            ),
            removed: [],
            files: [],
          },
          em,
        ),
      );
      cases.push({ name: `${count} pages, a layer of ${20} changed pages`, revisionId: layer.revision.id, baseId: revisionId });
    }
    await app.get(DataSource).query('ANALYZE');
    for (const { name, revisionId, baseId } of cases) {
      const keyed = baseId
        ? () => measured(databaseUrl, KEYED_LAYER, [revisionId, baseId], ['SET LOCAL enable_sort = off'])
        : () => measured(databaseUrl, KEYED_FULL, [revisionId], ['SET LOCAL enable_sort = off']);
      const queries: [string, () => Promise<{ ms: number; cpu: number; rows: number }>][] = [
        ['SELECT (unordered)', () => measured(databaseUrl, SELECT, [revisionId])],
        ['walk (before)', () => measured(databaseUrl, WALK, [revisionId])],
        ['by key (now)', keyed],
      ];
      const figures = new Map(queries.map(([label]) => [label, { ms: [] as number[], cpu: [] as number[], rows: 0 }]));
      for (const [, run] of queries) await run(); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const [label, run] of round % 2 ? [...queries].reverse() : queries) {
          const result = await run();
          const figure = figures.get(label)!;
          figure.ms.push(result.ms);
          figure.cpu.push(result.cpu);
          figure.rows = result.rows;
        }
      }
      const select = figures.get('SELECT (unordered)')!;
      process.stdout.write(`\n${name}\n`);
      for (const [label, figure] of figures) {
        process.stdout.write(
          `  ${label.padEnd(20)} ${figure.rows} rows: wall p50 ${median(figure.ms).toFixed(1)} ms (${(median(figure.ms) / median(select.ms)).toFixed(2)}×), ` +
            `backend CPU p50 ${median(figure.cpu).toFixed(1)} ms (${(median(figure.cpu) / median(select.cpu)).toFixed(2)}× the SELECT's)\n`,
        );
      }
    }
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
