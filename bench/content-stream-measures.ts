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

async function timedQuery(url: string, sql: string, params: unknown[]): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query(sql, params);
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

/** The same rows a GET /content reads (pages with their bodies), with a plain SELECT: the floor a streamed answer is compared to. */
export function selectRows(url: string, spaceId: string): Promise<number> {
  return timedQuery(
    url,
    `SELECT p.*, d.markdown FROM spaces s JOIN revision_pages p ON p.revision_id = s.revision_id LEFT JOIN documents d ON d.id = p.document_id WHERE s.id = $1`,
    [spaceId],
  );
}

/** The rows in the order the route shows them (the recursive walk of ContentRepository.streamTree), read at once by a plain client. */
export function treeQueryRows(url: string, spaceId: string): Promise<number> {
  return timedQuery(
    url,
    `WITH RECURSIVE walk AS (
       SELECT p.page_id, p.kind, 0 AS depth, ARRAY[lpad(p.position::text, 10, '0') || p.page_id] AS sort
       FROM spaces s JOIN revision_pages p ON p.revision_id = s.revision_id WHERE s.id = $1 AND p.parent_id IS NULL
       UNION ALL
       SELECT c.page_id, c.kind, w.depth + 1, w.sort || (lpad(c.position::text, 10, '0') || c.page_id)
       FROM walk w JOIN revision_pages c ON c.revision_id = (SELECT revision_id FROM spaces WHERE id = $1) AND c.parent_id = w.page_id
       WHERE w.kind <> 'link' AND c.kind <> 'group'
     )
     SELECT w.depth, p.*, d.markdown
     FROM walk w
     JOIN revision_pages p ON p.revision_id = (SELECT revision_id FROM spaces WHERE id = $1) AND p.page_id = w.page_id
     LEFT JOIN documents d ON d.id = p.document_id
     ORDER BY w.sort`,
    [spaceId],
  );
}
