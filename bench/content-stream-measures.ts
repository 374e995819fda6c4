/* What content.bench.ts and content-stream.ts measure GET /content with: the generated pages, a
 * streamed read, its floors (the SELECT of the same rows, and the route's own ordered walk run by a
 * plain client) and the server's live heap while it streams. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from 'pg';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import type { User } from '../src/modules/users/user.entity';

// A vocabulary with a long tail, as real text has: a few words are everywhere, most are rare.
export const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `term${i.toString(36)}`);
export const COMMON = ['install', 'configure', 'server', 'account', 'deploy', 'token', 'search', 'guide'];
export function body(n: number): string {
  let seed = n * 2654435761;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const paragraph = () =>
    Array.from({ length: 60 }, () =>
      next() < 0.1 ? COMMON[Math.floor(next() * COMMON.length)] : VOCABULARY[Math.floor(next() ** 3 * VOCABULARY.length)],
    ).join(' ');
  return `Intro of page ${n}. ${paragraph()}\n\n## Setup\n\n${paragraph()}\n\n## Usage\n\n${paragraph()} [next](/pages/p${n + 1})\n`;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Writes `count` generated pages straight into a new active revision of the space (the write path imports use, without the crawl). */
export async function generatePages(writes: SpaceUnitOfWork, writer: RevisionWriter, user: User, spaceId: string, count: number): Promise<number> {
  const started = performance.now();
  const pages: DraftPage[] = Array.from({ length: count }, (_, i) =>
    documentPage({
      pageId: `p${i}`,
      parentId: i < 100 ? null : `p${i % 100}`,
      position: i,
      title: `Page ${i} ${COMMON[i % COMMON.length]}`,
      slug: `page-${i}`,
      markdown: body(i),
    }),
  );
  await writes.run(spaceId, user, 'edit', ({ commitRevision }) =>
    commitRevision((parent, em) => writer.write({ spaceId, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
  );
  return Math.round(performance.now() - started);
}

/** Streams GET `url` to nowhere (the client keeps no body): its time and size. */
export async function streamedRead(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return { ms, bytes };
}

/** `gc()` without starting node with --expose-gc. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Streams GET `url` (the server runs in this process) and, every 256 KiB received, collects the
 * garbage and samples the heap: `liveMb` is the most the server (with the client's buffers) held
 * at once above the idle heap. `usedMb` is the plain `heapUsed` peak without collecting, which
 * also counts garbage V8 had not collected yet, so it grows with the body whatever is held.
 * Each collection stops the server too (same event loop): sampling every 64 KiB on a loaded
 * machine starved the pool's timers (a connection timed out mid-stream), hence 256 KiB.
 */
export async function liveHeapRead(url: string, headers: Record<string, string>): Promise<{ liveMb: number; usedMb: number; samples: number }> {
  const gc = collector();
  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  // Garbage included, as measured before: no collection during the read.
  gc();
  let base = process.memoryUsage().heapUsed;
  let used = base;
  const sampler = setInterval(() => (used = Math.max(used, process.memoryUsage().heapUsed)), 5);
  await (async () => {
    const res = await fetch(url, { headers });
    for await (const _chunk of res.body as unknown as AsyncIterable<Uint8Array>) used = Math.max(used, process.memoryUsage().heapUsed);
  })();
  clearInterval(sampler);
  const usedMb = mb(used - base);
  // Live: collected before each sample.
  gc();
  base = process.memoryUsage().heapUsed;
  let live = base;
  let samples = 0;
  let since = 0;
  const res = await fetch(url, { headers });
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    since += chunk.length;
    if (since < 256 * 1024) continue;
    since = 0;
    gc();
    samples++;
    live = Math.max(live, process.memoryUsage().heapUsed);
  }
  return { liveMb: mb(live - base), usedMb, samples };
}

async function timedQuery(url: string, sql: string, params: unknown[], settings: string[] = []): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const setting of settings) await client.query(setting);
    const started = performance.now();
    await client.query(sql, params);
    const ms = performance.now() - started;
    await client.query('COMMIT');
    return ms;
  } finally {
    await client.end();
  }
}

/** Every column of `revision_pages` but `tree_key`: the SELECT reads what it read before keys were stored. */
const PAGE_ROW = `p.revision_id, p.page_id, p.parent_id, p.position, p.kind, p.title, p.emoji, p.icon, p.slug, p.path, p.description, p.layout,
  p.cover, p.hidden, p.no_index, p.no_robots_index, p.variables, p.document_id, p.link_target, p.computed, p.created_at, p.updated_at`;

/**
 * The same rows a GET /content reads (pages with their bodies), with a plain SELECT: the floor a
 * streamed answer is compared to. The revision is a constant for the planner (an InitPlan), as a
 * client that knows it would write it: joined from `spaces`, the view was hashed over every
 * revision's rows in the database (24 Nov 23:16: 323 ms at 1k pages, slower than the route itself).
 */
export function selectRows(url: string, spaceId: string): Promise<number> {
  return timedQuery(
    url,
    `SELECT ${PAGE_ROW}, d.markdown FROM revision_pages p LEFT JOIN documents d ON d.id = p.document_id
      WHERE p.revision_id = (SELECT revision_id FROM spaces WHERE id = $1)`,
    [spaceId],
  );
}

/**
 * The same rows in the order the route shows them (the key order of ContentRepository.streamTree,
 * for a full revision, as its transaction plans it), read at once by a plain client.
 */
export function treeQueryRows(url: string, spaceId: string): Promise<number> {
  return timedQuery(
    url,
    `SELECT ${PAGE_ROW}, (SELECT d.markdown FROM documents d WHERE d.id = p.document_id) AS markdown
       FROM revision_page_rows p
      WHERE p.revision_id = (SELECT revision_id FROM spaces WHERE id = $1) AND NOT p.deleted AND p.tree_key > ''
      ORDER BY p.tree_key`,
    [spaceId],
    ['SET LOCAL enable_sort = off'],
  );
}
