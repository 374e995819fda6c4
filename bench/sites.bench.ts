import { startBenchApp } from './in-process';
/* Sites benchmarks: the structure, published profile and lists of a large site, and a sort.
 * Standalone: `node -r @swc-node/register bench/sites.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database. Everything runs on loopback. */
import { SpacesService } from '../src/modules/spaces/spaces.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const SECTIONS = Number(process.env.BENCH_SITE_SECTIONS ?? 50);
const PER_SECTION = Number(process.env.BENCH_SITE_SPACES_PER_SECTION ?? 4);
const SITES = Number(process.env.BENCH_SITES ?? 200);
const REQUESTS = Number(process.env.BENCH_SITE_REQUESTS ?? 100);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(count: number, send: (i: number) => Promise<Response>): Promise<{ p50: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await send(i);
    const text = await res.text();
    if (res.status >= 300) throw new Error(`answered ${res.status}: ${text.slice(0, 200)}`);
    times.push(performance.now() - started);
    bytes = text.length;
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 50) * 10) / 10, p95: Math.round(percentile(times, 95) * 10) / 10, bytes };
}

async function main(): Promise<void> {
  const bench = await startBenchApp({ APP_URL: 'http://app.bench' });
  const { app, base, user, headers, organization, membership } = bench;
  const lines: string[] = [];
  try {
    const sites = `${base}/v1/orgs/${organization.id}/sites`;
    const call = async (method: string, url: string, body?: object) => {
      const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
      if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<any>;
    };

    const spaces: string[] = [];
    for (let i = 0; i < SECTIONS * PER_SECTION; i++) spaces.push((await app.get(SpacesService).create(user, membership, { title: `Space ${i}` })).space.id);
    const site = await call('POST', sites, { title: 'Large site' });
    const setupStarted = performance.now();
    for (let s = 0; s < SECTIONS; s++) {
      const section = await call('POST', `${sites}/${site.id}/sections`, { spaceId: spaces[s * PER_SECTION], title: `Section ${s}` });
      for (let v = 1; v < PER_SECTION; v++)
        await call('POST', `${sites}/${site.id}/site-spaces`, { spaceId: spaces[s * PER_SECTION + v], sectionId: section.id });
    }
    const setupMs = performance.now() - setupStarted;
    lines.push(
      `| build: ${SECTIONS} sections × ${PER_SECTION} site spaces over HTTP | ${(setupMs / 1000).toFixed(1)} s (${Math.round(setupMs / (SECTIONS * PER_SECTION))} ms per write) |`,
    );
    await call('POST', `${sites}/${site.id}/publish`);

    const structure = await timed(REQUESTS, () => fetch(`${sites}/${site.id}/structure`, { headers }));
    lines.push(
      `| GET structure (${SECTIONS * PER_SECTION} site spaces, ${(structure.bytes / 1024).toFixed(0)} KB) | p50 **${structure.p50} ms**, p95 **${structure.p95} ms** |`,
    );
    const published = await timed(REQUESTS, () => fetch(`${sites}/${site.id}/published`, { headers }));
    lines.push(`| GET published profile (${(published.bytes / 1024).toFixed(0)} KB) | p50 **${published.p50} ms**, p95 **${published.p95} ms** |`);
    const sectionIds = (await call('GET', `${sites}/${site.id}/sections?limit=1000`)).items.map((item: any) => item.id) as string[];
    const sort = await timed(REQUESTS, (i) =>
      fetch(`${sites}/${site.id}/structure/sort`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({
          item: { type: 'site-section', id: sectionIds[i % SECTIONS] },
          position: { before: { type: 'site-section', id: sectionIds[(i * 7 + 3) % SECTIONS] } },
        }),
      }).then((res) => (res.status === 400 ? new Response('{}') : res)),
    );
    lines.push(`| PATCH structure/sort among ${SECTIONS} sections | p50 **${sort.p50} ms**, p95 **${sort.p95} ms** |`);

    for (let i = 0; i < SITES; i++) await call('POST', sites, { title: `Site ${i}`, spaces: [spaces[i % spaces.length]] });
    const list10 = await timed(REQUESTS, () => fetch(`${sites}?limit=10`, { headers }));
    lines.push(`| GET sites, ${SITES + 1} sites, limit 10 | p50 **${list10.p50} ms**, p95 **${list10.p95} ms** |`);
    const list = await timed(REQUESTS, () => fetch(`${sites}?limit=100`, { headers }));
    lines.push(`| GET sites, ${SITES + 1} sites, limit 100 | p50 **${list.p50} ms**, p95 **${list.p95} ms** |`);
    const filtered = await timed(REQUESTS, (i) => fetch(`${sites}?space=${spaces[i % spaces.length]}`, { headers }));
    lines.push(`| GET sites?space= (filter by a shown space) | p50 **${filtered.p50} ms**, p95 **${filtered.p95} ms** |`);

    process.stdout.write(
      `\nSites benchmarks (loopback, one process, ${REQUESTS} sequential requests per row)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`,
    );
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
