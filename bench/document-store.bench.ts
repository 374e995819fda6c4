/* Stored page documents (issue 27): what storing each new body's public document costs a write, and
 * what it saves a read.
 * 1. An import-style bulk write: BENCH_DOC_PAGES (default 2000) new pages of GitBook-dialect bodies (ten
 *    files of the document model's test corpus each, ~2 KB, each body made distinct) written as one
 *    revision through `RevisionWriter` in the space's unit of work, BENCH_DOC_WRITES (default 3) times:
 *    ms per page, median.
 * 2. Reads of one page of the corpus (~5 KB, every block type) and of one of 200 KB: the page-document
 *    route (`getPageDocumentInRevisionById`) against the page read as Markdown (`getPageInRevisionById`),
 *    and the page read with `format=document`: one request after the other, interleaved, BENCH_DOC_READS
 *    (default 300) each: p50 in ms and the ratio to the Markdown read (goal: within 1.2×).
 * `BENCH_ONLY=document-store npm run bench`, or standalone: `node -r @swc-node/register bench/document-store.bench.ts`. */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startBenchApp } from './in-process';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const PAGES = Number(process.env.BENCH_DOC_PAGES ?? 2000);
const WRITES = Number(process.env.BENCH_DOC_WRITES ?? 3);
const READS = Number(process.env.BENCH_DOC_READS ?? 300);

const DIR = join(__dirname, '..', 'test', 'fixtures', 'documents');
const CORPUS = readdirSync(DIR)
  .filter((name) => name.endsWith('.md') && name !== 'malformed.md')
  .sort()
  .map((name) => readFileSync(join(DIR, name), 'utf8'));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app, user, membership, base, headers } = bench;
  const lines = [`Stored page documents (load ${loadavg()[0].toFixed(1)} at start):`];
  try {
    const writer = app.get(RevisionWriter);
    const writes = app.get(SpaceUnitOfWork);
    const write = async (spaceId: string, pages: DraftPage[]) =>
      writes.run(spaceId, user, 'edit', ({ commitRevision }) =>
        commitRevision((parent, em) => writer.write({ spaceId, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );

    const perPage: number[] = [];
    let chars = 0;
    for (let w = 0; w < WRITES; w++) {
      const { space } = await app.get(SpacesService).create(user, membership, { title: `Import ${w}` });
      const pages = Array.from({ length: PAGES }, (_, i) =>
        documentPage({
          pageId: `p${i}`,
          parentId: null,
          position: i,
          title: `Page ${i}`,
          slug: `page-${i}`,
          // Ten files of the corpus in turn (~2 KB): every block type across the import.
          markdown: `${Array.from({ length: 10 }, (_, k) => CORPUS[(i + k) % CORPUS.length]).join('\n')}\nPage ${i} of import ${w} (${Date.now()}).\n`,
        }),
      );
      chars = pages.reduce((sum, page) => sum + (page.markdown?.length ?? 0), 0);
      const started = performance.now();
      await write(space.id, pages);
      perPage.push((performance.now() - started) / PAGES);
    }
    lines.push(
      `  bulk write of ${PAGES} new pages (${(chars / PAGES / 1024).toFixed(1)} KB each): ${median(perPage).toFixed(2)} ms/page median ` +
        `(${perPage.map((ms) => ms.toFixed(2)).join(', ')}), ${(1000 / median(perPage)).toFixed(0)} pages/s`,
    );

    const { space } = await app.get(SpacesService).create(user, membership, { title: 'Reads' });
    const corpus = CORPUS.join('\n');
    let large = '';
    while (large.length < 200 * 1024) large += `${corpus}\n`;
    await write(space.id, [
      documentPage({ pageId: 'small', parentId: null, position: 0, title: 'Small', slug: 'small', markdown: corpus }),
      documentPage({ pageId: 'large', parentId: null, position: 1, title: 'Large', slug: 'large', markdown: large }),
    ]);
    const revision = ((await (await fetch(`${base}/v1/spaces/${space.id}`, { headers })).json()) as { revision: string }).revision;
    for (const [label, pageId] of [
      [`${(corpus.length / 1024).toFixed(0)} KB page`, 'small'],
      [`${(large.length / 1024).toFixed(0)} KB page`, 'large'],
    ]) {
      const routes = {
        markdown: `${base}/v1/spaces/${space.id}/revisions/${revision}/page/${pageId}`,
        document: `${base}/v1/spaces/${space.id}/revisions/${revision}/page/${pageId}/document`,
        'format=document': `${base}/v1/spaces/${space.id}/revisions/${revision}/page/${pageId}?format=document`,
      };
      const times: Record<string, number[]> = { markdown: [], document: [], 'format=document': [] };
      const once = async (name: keyof typeof routes) => {
        const started = performance.now();
        const res = await fetch(routes[name], { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
        times[name].push(performance.now() - started);
      };
      for (let i = 0; i < 20; i++) for (const name of Object.keys(routes)) await once(name as keyof typeof routes); // warm-up
      for (const name of Object.keys(times)) times[name] = [];
      for (let i = 0; i < READS; i++) for (const name of Object.keys(routes)) await once(name as keyof typeof routes);
      const p50 = (name: string) => median(times[name]);
      lines.push(
        `  ${label}, p50 of ${READS} interleaved reads: markdown ${p50('markdown').toFixed(2)} ms, ` +
          `page document ${p50('document').toFixed(2)} ms (${(p50('document') / p50('markdown')).toFixed(2)}×), ` +
          `format=document ${p50('format=document').toFixed(2)} ms (${(p50('format=document') / p50('markdown')).toFixed(2)}×)`,
      );
    }
    lines.push(`  (load ${loadavg()[0].toFixed(1)} at end)`);
    console.log(lines.join('\n'));
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
