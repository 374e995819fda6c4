import { startBenchApp } from './in-process';
/* Content benchmarks (issue 18's table): website import, search at 1k and 100k pages (and their
 * ratio), writing a 100k-page revision, a page read at 100 and 10k pages, GET /content at 1k and
 * 10k pages (time against a plain SELECT of the same rows, and the server's memory while it streams).
 * Standalone: `node -r @swc-node/register bench/content.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database. Everything runs on loopback.
 * BENCH_LARGE_PAGES (default 100000) sizes the large space, BENCH_SEARCHES the searches per row. */
import { RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { generatedSite, serveWebsite } from '../test/support/website-fixture';
import { COMMON, generatePages, liveHeapRead, median, selectRows, streamedRead, treeQueryRows, VOCABULARY } from './content-stream-measures';
import { BenchRecorder, tablesFromMarkdown } from './harness';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const IMPORT_PAGES = Number(process.env.BENCH_IMPORT_PAGES ?? 1000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200);
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 100_000);
const MEDIUM = Math.min(10_000, LARGE);

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

async function main(): Promise<void> {
  const bench = await startBenchApp({ OUTBOUND_ALLOW_PRIVATE: 'true', IMPORT_MAX_PAGES: '100000' });
  const { app, base, user, headers, membership, config, databaseUrl } = bench;
  const lines: string[] = [];
  const recorder = new BenchRecorder('content', 'Content: import, search, page reads and GET /content against space size', {
    BENCH_IMPORT_PAGES: IMPORT_PAGES,
    BENCH_SEARCHES: SEARCHES,
    BENCH_LARGE_PAGES: LARGE,
  });
  // Cost against space size (pages): one line per measurement in the report.
  const bySize: { series: string; x: number; y: number }[] = [];
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
    bySize.push({ series: 'search p95 (mixed words)', x: 1000, y: mixed1k.p95 }, { series: 'search p95 (mixed words)', x: LARGE, y: mixedLarge.p95 });
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
    bySize.push({ series: 'GET /content/page/{id} p95', x: 100, y: page100.p95 }, { series: 'GET /content/page/{id} p95', x: MEDIUM, y: pageMedium.p95 });
    lines.push(`| GET /content/page/{id}, 100-page space | p50 **${page100.p50} ms**, p95 **${page100.p95} ms** |`);
    lines.push(
      `| GET /content/page/{id}, ${MEDIUM}-page space | p50 **${pageMedium.p50} ms**, p95 **${pageMedium.p95} ms**; p50 ÷ 100-page p50 **${(pageMedium.p50 / page100.p50).toFixed(2)}×** |`,
    );

    for (const [space, count] of [
      [generated1k, 1000],
      [medium, MEDIUM],
    ] as const) {
      const url = `${base}/v1/spaces/${space.id}/content`;
      await streamedRead(url, headers); // warm-up
      const reads = [];
      const selects = [];
      const walks = [];
      for (let i = 0; i < 5; i++) {
        reads.push(await streamedRead(url, headers));
        selects.push(await selectRows(databaseUrl, space.id));
        walks.push(await treeQueryRows(databaseUrl, space.id));
      }
      // The server runs in this process: its live heap (collected every 256 KiB received) and the plain heapUsed peak.
      const heap = await liveHeapRead(url, headers);
      const ms = median(reads.map((read) => read.ms));
      const selectMs = median(selects);
      const walkMs = median(walks);
      bySize.push({ series: 'GET /content p50 (streamed)', x: count, y: Math.round(ms) });
      lines.push(
        `| GET /content, ${count} pages (${(reads[0].bytes / 1024 / 1024).toFixed(1)} MB of JSON, streamed) | p50 **${Math.round(ms)} ms**; SELECT of the same rows ${Math.round(selectMs)} ms: **${(ms / selectMs).toFixed(2)}×**; ` +
          `the same rows in the order shown (the route's walk, read at once) ${Math.round(walkMs)} ms: ${(ms / walkMs).toFixed(2)}×; ` +
          `server live heap peak above idle **${heap.liveMb} MB** (heapUsed peak, uncollected garbage included: ${heap.usedMb} MB) |`,
      );
    }

    const printed = `\nContent benchmarks (loopback, one process, ${SEARCHES} searches per row, sequential)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`;
    process.stdout.write(printed);
    for (const table of tablesFromMarkdown(printed)) recorder.table(table.title, table.columns, table.rows);
    recorder.chart({ title: 'Content reads against space size', kind: 'size', x: 'pages in the space', y: 'milliseconds', points: bySize });
    await recorder.save();
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
