import autocannon from 'autocannon';
import { documentPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { startBenchApp } from './in-process';
/* URL resolution (issue 26): `POST /v1/urls/published` on a warm cache, interleaved with the same
 * server's `GET /v1/user` (the hot-path floor), in alternating rounds. Standalone:
 * `node -r @swc-node/register bench/published.bench.ts`. BENCH_SECONDS (default 5) per round,
 * BENCH_ROUNDS (default 3), BENCH_PUBLISHED_SECTIONS (default 10 sections × 2 variants, 50 pages each). */

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECTIONS = Number(process.env.BENCH_PUBLISHED_SECTIONS ?? 10);
const PAGES = 50;
const BASE_URL = 'http://readers.bench/sites';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

async function measure(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections: 10, pipelining: 1, duration: SECONDS, ...options });
  if (result.non2xx || result.errors) throw new Error(`${options.method ?? 'GET'} ${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const bench = await startBenchApp({ PUBLISHED_BASE_URL: BASE_URL });
  const { app, base, user, headers, organization, membership } = bench;
  try {
    const call = async (method: string, url: string, body?: object) => {
      const res = await fetch(`${base}${url}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
      if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    await call('PATCH', `/v1/orgs/${organization.id}`, { hostname: 'bench-org' });
    const sites = `/v1/orgs/${organization.id}/sites`;
    const site = await call('POST', sites, { title: 'Readers' });
    const writer = app.get(RevisionWriter);
    const space = async (title: string) => {
      const { space: created } = await app.get(SpacesService).create(user, membership, { title });
      const pages = [documentPage({ pageId: 'top', title: 'Guide', slug: 'guide', parentId: null, position: 0, markdown: '# Guide\n' })];
      for (let i = 0; i < PAGES; i++) {
        pages.push(documentPage({ pageId: `p${i}`, title: `Page ${i}`, slug: `page-${i}`, parentId: 'top', position: i, markdown: `# Page ${i}\n` }));
      }
      await app
        .get(SpaceUnitOfWork)
        .run(created.id, user, 'edit', (write) =>
          write.commitRevision((parent, em) =>
            writer.write({ spaceId: created.id, parents: [parent], type: 'edits', createdBy: user.id, pages, files: [] }, em),
          ),
        );
      return created.id;
    };
    for (let s = 0; s < SECTIONS; s++) {
      const section = await call('POST', `${sites}/${site.id}/sections`, { spaceId: await space(`Section ${s}`), title: `Section ${s}` });
      await call('POST', `${sites}/${site.id}/site-spaces`, { spaceId: await space(`Variant ${s}`), sectionId: section.id });
    }
    await call('PATCH', `${sites}/${site.id}`, { basename: 'docs' });
    await call('POST', `${sites}/${site.id}/publish`);
    // A nested page of a variant of a section in the middle of the site: the walk's longest path.
    const structure = await call('GET', `${sites}/${site.id}/structure`);
    const middle = structure.structure[Math.floor(SECTIONS / 2)];
    const variant = middle.siteSpaces.find((item: any) => !item.default);
    const url = `${BASE_URL}/bench-org/docs/${middle.path}/${variant.path}/guide/page-7`;
    const body = JSON.stringify({ url });
    const check = await call('POST', '/v1/urls/published', { url });
    if (check.pathname !== 'guide/page-7') throw new Error(`resolved to ${JSON.stringify(check)}`);

    const resolve: autocannon.Options = { url: `${base}/v1/urls/published`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const user_: autocannon.Options = { url: `${base}/v1/user`, headers };
    await measure({ ...resolve, duration: 2 }); // warm-up: caches, JIT
    await measure({ ...user_, duration: 2 });
    const r: Figures[] = [];
    const u: Figures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      r.push(await measure(resolve));
      u.push(await measure(user_));
    }
    const ratios = r.map((figures, i) => figures.rps / u[i].rps);
    // Latency alone: one connection, so the figures are a request's own time, not the queue's.
    const r1 = await measure({ ...resolve, connections: 1 });
    const u1 = await measure({ ...user_, connections: 1 });
    process.stdout.write(
      `\nURL resolution: ${SECTIONS} sections × 2 variants × ${PAGES + 1} pages; ${ROUNDS} alternating rounds of ${SECONDS}s, 10 connections, loopback; medians\n\n` +
        '| route | req/s | p50 ms | p99 ms |\n|---|---|---|---|\n' +
        `| POST /v1/urls/published (nested page of a variant of a section) | ${median(r.map((f) => f.rps))} | ${median(r.map((f) => f.p50))} | ${median(r.map((f) => f.p99))} |\n` +
        `| GET /v1/user | ${median(u.map((f) => f.rps))} | ${median(u.map((f) => f.p50))} | ${median(u.map((f) => f.p99))} |\n` +
        `| POST /v1/urls/published, 1 connection | ${r1.rps} | ${r1.p50} | ${r1.p99} |\n` +
        `| GET /v1/user, 1 connection | ${u1.rps} | ${u1.p50} | ${u1.p99} |\n` +
        `\nresolve/user throughput: ${median(ratios).toFixed(2)} (per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}; goal ≥ 0.8, p50 ≤ 3 ms)\n`,
    );
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
