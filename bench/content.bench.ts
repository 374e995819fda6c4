import { startBenchApp } from './in-process';
/* Content benchmarks (issue 18's table): website import, search at 1k and 100k pages (and their
 * ratio), writing a 100k-page revision, a page read at 100 and 10k pages, GET /content at 1k and
 * 10k pages (time against a plain SELECT of the same rows, and the server's memory while it streams).
 * Standalone: `node -r @swc-node/register bench/content.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database. Everything runs on loopback.
 * BENCH_LARGE_PAGES (default 100000) sizes the large space, BENCH_SEARCHES the searches per row. */
import { Client } from 'pg';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import type { User } from '../src/modules/users/user.entity';
import { generatedSite, serveWebsite } from '../test/support/website-fixture';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const IMPORT_PAGES = Number(process.env.BENCH_IMPORT_PAGES ?? 1000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200);
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 100_000);
const MEDIUM = Math.min(10_000, LARGE);

// A vocabulary with a long tail, as real text has: a few words are everywhere, most are rare.
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `term${i.toString(36)}`);
const COMMON = ['install', 'configure', 'server', 'account', 'deploy', 'token', 'search', 'guide'];
function body(n: number): string {
  let seed = n * 2654435761;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const paragraph = () =>
    Array.from({ length: 60 }, () =>
      next() < 0.1 ? COMMON[Math.floor(next() * COMMON.length)] : VOCABULARY[Math.floor(next() ** 3 * VOCABULARY.length)],
    ).join(' ');
  return `Intro of page ${n}. ${paragraph()}\n\n## Setup\n\n${paragraph()}\n\n## Usage\n\n${paragraph()} [next](/pages/p${n + 1})\n`;
}
const QUERIES = [...COMMON, ...VOCABULARY.slice(0, 30), ...VOCABULARY.slice(1000, 1030), 'install server', '"configure the"', 'missingword'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(
  url: string,
  headers: Record<string, string>,
  count: number,
  pick: (i: number) => string,
): Promise<{ p50: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(`${url}${pick(i)}`, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${pick(i)} answered ${res.status}: ${text.slice(0, 200)}`);
    times.push(performance.now() - started);
    bytes = text.length;
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 50) * 10) / 10, p95: Math.round(percentile(times, 95) * 10) / 10, bytes };
}

/**
 * Streams GET `url` to nowhere (the client keeps no body) while sampling this process's heap: the
 * server runs in this process, so the peak above the starting heap is what answering cost it.
 */
async function streamedRead(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number; peakMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const started = performance.now();
  const res = await fetch(url, { headers });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return { ms, bytes, peakMb: Math.round(((peak - base) / 1024 / 1024) * 10) / 10 };
}

/** The same rows a GET /content reads (pages with their bodies), with a plain SELECT: the floor a streamed answer is compared to. */
async function selectRows(url: string, spaceId: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query(
      `SELECT p.*, d.markdown FROM spaces s JOIN revision_pages p ON p.revision_id = s.revision_id LEFT JOIN documents d ON d.id = p.document_id WHERE s.id = $1`,
      [spaceId],
    );
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Writes `count` generated pages straight into a new active revision of the space (the write path imports use, without the crawl). */
async function generatePages(writes: SpaceUnitOfWork, writer: RevisionWriter, user: User, spaceId: string, count: number): Promise<number> {
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

async function main(): Promise<void> {
  const bench = await startBenchApp({ OUTBOUND_ALLOW_PRIVATE: 'true', IMPORT_MAX_PAGES: '100000' });
  const { app, base, user, headers, membership, config, databaseUrl } = bench;
  const lines: string[] = [];
  try {
    const newSpace = async (title: string) => (await app.get(SpacesService).create(user, membership, { title })).space;

    // 1. Import of a generated local site.
    const site = await serveWebsite(generatedSite(IMPORT_PAGES));
    const imported = await newSpace('Imported');
    const started = performance.now();
    const res = await fetch(`${base}/v1/spaces/${imported.id}/content/import`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${site.origin}/site/`, source: 'website' }),
    });
    const result = (await res.json()) as { importedResources: number };
    const seconds = (performance.now() - started) / 1000;
    await site.close();
    if (res.status !== 201) throw new Error(`import answered ${res.status}`);
    lines.push(
      `| import, ${IMPORT_PAGES}-page local site (concurrency ${config.contentImport.concurrency}) | ${result.importedResources} pages in ${seconds.toFixed(1)} s = **${Math.round(result.importedResources / seconds)} pages/s** |`,
    );

    // 2. Search at 1k pages (the imported space: every page has the same generated words).
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'page', 'section'];
    const small = await timed(`${base}/v1/spaces/${imported.id}/search?query=`, headers, SEARCHES, (i) => encodeURIComponent(words[i % words.length]));
    lines.push(`| search, 1k pages (imported space, words on every page) | p50 **${small.p50} ms**, p95 **${small.p95} ms** |`);

    const writer = app.get(RevisionWriter);
    const writes = app.get(SpaceUnitOfWork);
    const generated1k = await newSpace('Generated 1k');
    await generatePages(writes, writer, user, generated1k.id, 1000);
    const mixed1k = await timed(`${base}/v1/spaces/${generated1k.id}/search?query=`, headers, SEARCHES, (i) => encodeURIComponent(QUERIES[i % QUERIES.length]));
    lines.push(`| search, 1k pages (generated text, mixed common and rare words) | p50 **${mixed1k.p50} ms**, p95 **${mixed1k.p95} ms** |`);

    // 3. Search at 100k pages in one space.
    const large = await newSpace(`Generated ${LARGE}`);
    const writeMs = await generatePages(writes, writer, user, large.id, LARGE);
    lines.push(`| write + index a ${LARGE}-page revision (one transaction) | **${(writeMs / 1000).toFixed(1)} s** |`);
    const mixedLarge = await timed(`${base}/v1/spaces/${large.id}/search?query=`, headers, SEARCHES, (i) => encodeURIComponent(QUERIES[i % QUERIES.length]));
    lines.push(`| search, ${LARGE} pages (mixed common and rare words) | p50 **${mixedLarge.p50} ms**, p95 **${mixedLarge.p95} ms** |`);
    lines.push(`| search p95, ${LARGE} ÷ 1k pages (mixed) | **${(mixedLarge.p95 / mixed1k.p95).toFixed(2)}×** |`);
    const rareLarge = await timed(`${base}/v1/spaces/${large.id}/search?query=`, headers, 50, (i) => VOCABULARY[1000 + i]);
    lines.push(`| search, ${LARGE} pages (rare words only) | p50 **${rareLarge.p50} ms**, p95 **${rareLarge.p95} ms** |`);

    // 4. Page reads at 100 and 10k pages; GET /content at 1k and 10k pages.
    const hundred = await newSpace('Generated 100');
    await generatePages(writes, writer, user, hundred.id, 100);
    const medium = await newSpace(`Generated ${MEDIUM}`);
    await generatePages(writes, writer, user, medium.id, MEDIUM);
    // Leaf pages (no sub-pages), as most pages of a large space are.
    const leaf = (count: number) => (i: number) => `p${count > 100 ? 100 + ((i * 97) % (count - 100)) : (i * 7) % count}`;
    const page100 = await timed(`${base}/v1/spaces/${hundred.id}/content/page/`, headers, 200, leaf(100));
    const pageMedium = await timed(`${base}/v1/spaces/${medium.id}/content/page/`, headers, 200, leaf(MEDIUM));
    lines.push(`| GET /content/page/{id}, 100-page space | p50 **${page100.p50} ms**, p95 **${page100.p95} ms** |`);
    lines.push(
      `| GET /content/page/{id}, ${MEDIUM}-page space | p50 **${pageMedium.p50} ms**, p95 **${pageMedium.p95} ms**; p50 ÷ 100-page p50 **${(pageMedium.p50 / page100.p50).toFixed(2)}×** |`,
    );

    for (const [space, count] of [
      [generated1k, 1000],
      [medium, MEDIUM],
    ] as const) {
      const reads = [];
      for (let i = 0; i < 5; i++) reads.push(await streamedRead(`${base}/v1/spaces/${space.id}/content`, headers));
      const selects = [];
      for (let i = 0; i < 5; i++) selects.push(await selectRows(databaseUrl, space.id));
      const ms = median(reads.map((read) => read.ms));
      const selectMs = median(selects);
      lines.push(
        `| GET /content, ${count} pages (${(reads[0].bytes / 1024 / 1024).toFixed(1)} MB of JSON, streamed) | p50 **${Math.round(ms)} ms**; SELECT of the same rows ${Math.round(selectMs)} ms: **${(ms / selectMs).toFixed(2)}×**; server heap peak above idle **${Math.max(...reads.map((read) => read.peakMb))} MB** |`,
      );
    }

    process.stdout.write(
      `\nContent benchmarks (loopback, one process, ${SEARCHES} searches per row, sequential)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`,
    );
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
