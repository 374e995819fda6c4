import { startBenchApp } from './in-process';
/* Reader reads (issue 26, point 5): getPageDocumentInRevisionById at 100 and 10,000 pages (goal: the
 * 10k p50 within 1.5× of the 100 p50), and a signed file URL's refusal and read.
 * Standalone: `node -r @swc-node/register bench/reader-reads.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database; loopback, sequential requests.
 * BENCH_READER_PAGES (default 10000) sizes the large space, BENCH_READER_READS the reads per row. */
import { RevisionDeltaWriter } from '../src/modules/content/revision-delta-writer';
import { documentPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { generatePages } from './content-stream-measures';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_READER_PAGES ?? 10_000);
const READS = Number(process.env.BENCH_READER_READS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(url: (i: number) => string, headers: Record<string, string>, count: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(url(i), { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${url(i)} answered ${res.status}: ${text.slice(0, 200)}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 50) * 100) / 100, p95: Math.round(percentile(times, 95) * 100) / 100 };
}

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app, base, user, headers, membership } = bench;
  const lines: string[] = [];
  try {
    const writer = app.get(RevisionWriter);
    const writes = app.get(SpaceUnitOfWork);
    const spaceOf = async (count: number) => {
      const { space } = await app.get(SpacesService).create(user, membership, { title: `Generated ${count}` });
      await generatePages(writes, writer, user, space.id, count);
      // An edit of a few pages on top: the live revision is a layer over the full one, as after any ordinary edit.
      await writes.run(space.id, user, 'edit', ({ commitRevision }) =>
        commitRevision(async (base, em) => {
          const pages = [1, 2, 3].map((i) =>
            documentPage({ pageId: `p${i}`, parentId: null, position: i, title: `Page ${i} edited`, slug: `page-${i}`, markdown: `# Page ${i}\n\nEdited.\n` }),
          );
          const { revision, delta } = await app
            .get(RevisionDeltaWriter)
            .write({ spaceId: space.id, base, parents: [base], type: 'edits', createdBy: null, pages, removed: [], files: [] }, em);
          return Object.assign(revision, { delta });
        }),
      );
      const res = await fetch(`${base}/v1/spaces/${space.id}`, { headers });
      return { id: space.id, revision: ((await res.json()) as { revision: string }).revision };
    };
    const small = await spaceOf(100);
    const large = await spaceOf(LARGE);
    // Leaf pages (no sub-pages) spread over the tree, and the top-level pages that hold the large tree's sub-pages.
    const leaf = (count: number) => (i: number) => `p${count > 100 ? 100 + ((i * 97) % (count - 100)) : (i * 7) % count}`;
    const documentUrl = (space: { id: string; revision: string }, page: (i: number) => string) => (i: number) =>
      `${base}/v1/spaces/${space.id}/revisions/${space.revision}/page/${page(i)}/document`;
    await timed(documentUrl(small, leaf(100)), headers, 100); // warm-up
    await timed(documentUrl(large, leaf(LARGE)), headers, 100);
    // Alternating rounds (100, 10k, 10k top-level, 100, …) so that load from outside falls on all rows alike; medians of the rounds.
    const rounds: { p50: number; p95: number }[][] = [[], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      rounds[0].push(await timed(documentUrl(small, leaf(100)), headers, READS));
      rounds[1].push(await timed(documentUrl(large, leaf(LARGE)), headers, READS));
      rounds[2].push(
        await timed(
          documentUrl(large, (i) => `p${i % 100}`),
          headers,
          READS,
        ),
      );
    }
    const med = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const [s, l, top] = rounds.map((row) => ({ p50: med(row.map((r) => r.p50)), p95: med(row.map((r) => r.p95)) }));
    const perRound = rounds[1].map((r, i) => (r.p50 / rounds[0][i].p50).toFixed(2)).join(', ');
    lines.push(`| getPageDocumentInRevisionById, 100 pages, live revision a layer (leaf pages) | p50 **${s.p50} ms**, p95 ${s.p95} ms |`);
    lines.push(
      `| getPageDocumentInRevisionById, ${LARGE} pages, live revision a layer (leaf pages) | p50 **${l.p50} ms**, p95 ${l.p95} ms; ÷ 100-page p50 **${(l.p50 / s.p50).toFixed(2)}×** (per round: ${perRound}) |`,
    );
    lines.push(
      `| getPageDocumentInRevisionById, ${LARGE} pages, live revision a layer (top-level pages, ${Math.round(LARGE / 100) - 1} sub-pages each) | p50 **${top.p50} ms**, p95 ${top.p95} ms; ÷ 100-page p50 **${(top.p50 / s.p50).toFixed(2)}×** |`,
    );
    process.stdout.write(
      `\nReader reads (loopback, one process, ${ROUNDS} alternating rounds of ${READS} sequential reads per row, medians)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`,
    );
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
