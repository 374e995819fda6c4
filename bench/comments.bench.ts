import { startBenchApp } from './in-process';
/* Comments benchmarks: posting, reacting, and listing a space of 10k comments (with replies and reactions).
 * Standalone: `npm run -s build && node -r @swc-node/register bench/comments.bench.ts`. Uses DATABASE_URL
 * (default: the machine's PostgreSQL) to create and drop its own fresh database. Everything runs on loopback. */
import { DataSource } from 'typeorm';
import { documentPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { SpacesService } from '../src/modules/spaces/spaces.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const SEEDED = Number(process.env.BENCH_COMMENTS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_COMMENT_REQUESTS ?? 200);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `count` sequential requests; p50 and p95 in ms. */
async function timed(count: number, send: (i: number) => Promise<Response>): Promise<{ p50: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await send(i);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`request ${i} answered ${res.status}: ${text.slice(0, 200)}`);
    times.push(performance.now() - started);
    bytes = text.length;
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), bytes };
}

async function main(): Promise<void> {
  const bench = await startBenchApp({});
  const { app, base, user, headers, membership } = bench;
  const lines: string[] = [];
  try {
    const { space } = await app.get(SpacesService).create(user, membership, { title: 'Discussed' });
    const writer = app.get(RevisionWriter);
    const pages = Array.from({ length: 20 }, (_, i) =>
      documentPage({ pageId: `p${i}`, parentId: null, position: i, title: `Page ${i}`, slug: `page-${i}`, markdown: `# Page ${i}\n\n## Setup\n\nText.\n` }),
    );
    const revision = await app
      .get(SpaceUnitOfWork)
      .run(space.id, user, 'edit', ({ commitRevision }) =>
        commitRevision((parent, em) => writer.write({ spaceId: space.id, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );

    // Seed: SEEDED comments (a third resolved, most on a page), two replies and three reactions each, in SQL.
    const db = app.get(DataSource);
    const seedStarted = performance.now();
    await db.query(
      `INSERT INTO comments (id, space_id, revision_id, page_id, page_document_id, markdown, posted_by, posted_at, status, resolved_at, resolved_by)
       SELECT 'seed' || lpad(n::text, 8, '0'), $1, $2, CASE WHEN n % 5 = 0 THEN NULL ELSE 'p' || (n % 20) END, NULL, 'Seeded comment ' || n, $3,
              now() - (n || ' seconds')::interval, CASE WHEN n % 3 = 0 THEN 'resolved' ELSE 'open' END,
              CASE WHEN n % 3 = 0 THEN now() END, CASE WHEN n % 3 = 0 THEN $3 END
         FROM generate_series(1, $4) AS n`,
      [space.id, revision.id, user.id, SEEDED],
    );
    await db.query(
      `INSERT INTO comment_replies (id, comment_id, markdown, posted_by, posted_at)
       SELECT c.id || '-r' || k, c.id, 'reply', $1, c.posted_at + (k || ' seconds')::interval FROM comments c, generate_series(1, 2) AS k`,
      [user.id],
    );
    await db.query(
      `INSERT INTO comment_reactions (comment_id, emoji, user_id, reacted_at)
       SELECT c.id, e, $1, c.posted_at FROM comments c, unnest(ARRAY['👍', '🎉', '👀']) AS e`,
      [user.id],
    );
    await db.query(`UPDATE spaces SET open_comments = (SELECT count(*) FROM comments WHERE space_id = $1 AND status = 'open') WHERE id = $1`, [space.id]);
    await db.query('ANALYZE comments; ANALYZE comment_replies; ANALYZE comment_reactions');
    lines.push(
      `| seed ${SEEDED} comments, ${2 * SEEDED} replies, ${3 * SEEDED} reactions (SQL) | ${((performance.now() - seedStarted) / 1000).toFixed(1)} s |`,
    );

    const url = `${base}/v1/spaces/${space.id}`;
    const post = await timed(REQUESTS, (i) =>
      fetch(`${url}/comments`, { method: 'POST', headers, body: JSON.stringify({ page: `p${i % 20}`, node: 'setup', body: { markdown: `Posted ${i}` } }) }),
    );
    lines.push(`| POST /comments (page + node, counter moved, under the space lock) | p50 **${post.p50} ms**, p95 **${post.p95} ms** |`);

    const react = await timed(REQUESTS, (i) =>
      fetch(`${url}/comments/seed${String((i % SEEDED) + 1).padStart(8, '0')}`, { method: 'PUT', headers, body: JSON.stringify({ addedReactions: ['🚀'] }) }),
    );
    lines.push(`| PUT /comments/{id} (add a reaction) | p50 **${react.p50} ms**, p95 **${react.p95} ms** |`);

    let cursor: string | undefined;
    const walk = await timed(REQUESTS / 4, async () => {
      const res = await fetch(`${url}/comments?limit=50${cursor ? `&page=${cursor}` : ''}`, { headers });
      const body = (await res.clone().json()) as { next?: { page: string } };
      cursor = body.next?.page;
      return res;
    });
    lines.push(
      `| GET /comments?limit=50, walking ${SEEDED} comments (${(walk.bytes / 1024).toFixed(0)} KB a page) | p50 **${walk.p50} ms**, p95 **${walk.p95} ms** |`,
    );

    const filtered = await timed(REQUESTS / 4, (i) => fetch(`${url}/comments?limit=50&status=open&targetPage=p${i % 20}&authors=${user.id}`, { headers }));
    lines.push(`| GET /comments filtered (status, targetPage, authors) | p50 **${filtered.p50} ms**, p95 **${filtered.p95} ms** |`);

    const document = await timed(REQUESTS / 4, () => fetch(`${url}/comments?limit=50&format=document`, { headers }));
    lines.push(`| GET /comments?limit=50&format=document | p50 **${document.p50} ms**, p95 **${document.p95} ms** |`);

    const commenters = await timed(REQUESTS / 4, () => fetch(`${url}/commenters`, { headers }));
    lines.push(`| GET /commenters (over ${SEEDED} comments and their replies) | p50 **${commenters.p50} ms**, p95 **${commenters.p95} ms** |`);

    process.stdout.write(`\nComments benchmarks (loopback, one process, sequential requests)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`);
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
