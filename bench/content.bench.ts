/* Content benchmarks: website import, search at 1k and 100k pages, GET /content at 10k pages.
 * Standalone: `node -r @swc-node/register bench/content.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database. Everything runs on loopback. */
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import type { User } from '../src/modules/users/user.entity';
import { createTestDatabase } from '../test/support/database';
import { generatedSite, serveWebsite } from '../test/support/website-fixture';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const IMPORT_PAGES = Number(process.env.BENCH_IMPORT_PAGES ?? 1000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200);

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
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    OUTBOUND_ALLOW_PRIVATE: 'true',
    IMPORT_MAX_PAGES: '100000',
    // The measured requests come from one address and one token: keep the limits out of the figures.
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const lines: string[] = [];
  try {
    const { user } = await app.get(UsersService).findOrCreate('bench@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { membership } = await app.get(OrganizationsService).create(user, { title: 'Bench Org' });
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
    const large = await newSpace('Generated 100k');
    const writeMs = await generatePages(writes, writer, user, large.id, 100_000);
    lines.push(`| write + index a 100k-page revision (one transaction) | ${(writeMs / 1000).toFixed(1)} s |`);
    const mixed100k = await timed(`${base}/v1/spaces/${large.id}/search?query=`, headers, SEARCHES, (i) => encodeURIComponent(QUERIES[i % QUERIES.length]));
    lines.push(`| search, 100k pages (mixed common and rare words) | p50 **${mixed100k.p50} ms**, p95 **${mixed100k.p95} ms** |`);
    const rare100k = await timed(`${base}/v1/spaces/${large.id}/search?query=`, headers, 50, (i) => VOCABULARY[1000 + i]);
    lines.push(`| search, 100k pages (rare words only) | p50 **${rare100k.p50} ms**, p95 **${rare100k.p95} ms** |`);

    // 4. GET /content of a 10k-page space.
    const tenK = await newSpace('Generated 10k');
    await generatePages(writes, writer, user, tenK.id, 10_000);
    const content = await timed(`${base}/v1/spaces/${tenK.id}/content`, headers, 20, () => '');
    lines.push(
      `| GET /content, 10k pages (${(content.bytes / 1024 / 1024).toFixed(1)} MB of JSON, bodies included) | p50 **${content.p50} ms**, p95 **${content.p95} ms** |`,
    );
    const pagesOnly = await timed(`${base}/v1/spaces/${tenK.id}/content/page/`, headers, 100, (i) => `p${(i * 97) % 10_000}`);
    lines.push(`| GET /content/page/{id}, 10k-page space | p50 **${pagesOnly.p50} ms**, p95 **${pagesOnly.p95} ms** |`);

    process.stdout.write(
      `\nContent benchmarks (loopback, one process, ${SEARCHES} searches per row, sequential)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`,
    );
  } finally {
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
