import { startBenchApp } from './in-process';
/* Site search benchmark (issue 26): `searchSiteContent` over a published site of 3 spaces × 10,000
 * pages against one of 3 × 100, same app, same database, the requests of both interleaved.
 * Standalone: `node -r @swc-node/register bench/site-search.bench.ts`. BENCH_SITE_SEARCH_PAGES (10000)
 * and BENCH_SITE_SEARCH_REQUESTS (200 per query and size) change the sizes. */
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { BenchRecorder, tablesFromMarkdown } from './harness';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_SITE_SEARCH_PAGES ?? 10_000);
const SMALL = 100;
const REQUESTS = Number(process.env.BENCH_SITE_SEARCH_REQUESTS ?? 200);
const TOPICS = ['install', 'configure', 'deploy', 'monitor', 'upgrade', 'backup', 'restore', 'secure', 'scale', 'debug'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Pages of a space: every page says "guide"; a tenth talk about each topic; one page in about 500 has a rare word. */
function pagesOf(count: number, salt: string): DraftPage[] {
  return Array.from({ length: count }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length];
    const rare = i % 500 === 7 ? ` The okapi ${salt} appears here.` : '';
    return documentPage({
      pageId: `p${i}`,
      parentId: i < 20 ? null : `p${i % 20}`,
      position: i,
      title: `${topic[0].toUpperCase()}${topic.slice(1)} guide ${i}`,
      slug: `${topic}-${i}`,
      markdown: `How to ${topic} the service, part ${i} of the guide.${rare}\n\n## Steps\n\nFirst ${topic}, then check the logs. Repeat for node ${i % 37}.\n\n## Notes\n\nSee the ${TOPICS[(i + 3) % TOPICS.length]} guide too.\n`,
    });
  });
}

async function main(): Promise<void> {
  const recorder = new BenchRecorder('site-search', 'Site search (searchSiteContent) against the site’s size', {
    BENCH_SITE_SEARCH_PAGES: LARGE,
    BENCH_SITE_SEARCH_REQUESTS: REQUESTS,
  });
  const bench = await startBenchApp({ APP_URL: 'http://app.bench' });
  const { app, base, user, headers, organization, membership } = bench;
  try {
    const sites = `${base}/v1/orgs/${organization.id}/sites`;
    const call = async (method: string, url: string, body?: object) => {
      const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
      if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    let oneLargeSpace = '';
    const buildSite = async (pages: number) => {
      const spaceIds: string[] = [];
      const started = performance.now();
      for (let s = 0; s < 3; s++) {
        const spaceId = (await app.get(SpacesService).create(user, membership, { title: `Space ${pages}-${s}` })).space.id;
        await app
          .get(SpaceUnitOfWork)
          .run(spaceId, user, 'edit', ({ commitRevision }) =>
            commitRevision((baseRevision, em) =>
              app
                .get(RevisionWriter)
                .write({ spaceId, parents: [baseRevision], type: 'edits', createdBy: null, pages: pagesOf(pages, `s${s}`), files: [] }, em),
            ),
          );
        spaceIds.push(spaceId);
      }
      if (pages === LARGE) oneLargeSpace = spaceIds[0];
      const site = await call('POST', sites, { title: `Site ${pages}`, spaces: spaceIds });
      await call('POST', `${sites}/${site.id}/publish`);
      return { siteId: site.id as string, seconds: (performance.now() - started) / 1000 };
    };
    const large = await buildSite(LARGE);
    const small = await buildSite(SMALL);

    const queries: [string, string][] = [
      ['common word ("guide": every page)', 'guide'],
      ['topic ("deploy": a tenth of the pages)', 'deploy'],
      ['rare word ("okapi": 1 page in 500)', 'okapi'],
      ['two words ("restore logs")', 'restore logs'],
    ];
    const lines: string[] = [];
    const bySize: { series: string; x: number; y: number }[] = [];
    for (const [name, query] of queries) {
      const times: Record<'large' | 'small' | 'space' | 'user', number[]> = { large: [], small: [], space: [], user: [] };
      const body = JSON.stringify({ query, scope: { mode: 'all' } });
      const once = async (which: 'large' | 'small' | 'space' | 'user') => {
        const siteId = which === 'large' ? large.siteId : small.siteId;
        const started = performance.now();
        const res =
          which === 'space'
            ? await fetch(`${base}/v1/spaces/${oneLargeSpace}/search?limit=20&query=${encodeURIComponent(query)}`, { headers })
            : which === 'user'
              ? await fetch(`${base}/v1/user`, { headers })
              : await fetch(`${sites}/${siteId}/search?limit=20`, { method: 'POST', headers, body });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`search answered ${res.status}: ${text.slice(0, 200)}`);
        return performance.now() - started;
      };
      for (let i = 0; i < 10; i++) {
        await once('large');
        await once('small');
      }
      for (let i = 0; i < REQUESTS; i++) {
        times.large.push(await once('large'));
        times.small.push(await once('small'));
        times.space.push(await once('space'));
        times.user.push(await once('user'));
      }
      const figure = (list: number[]) => {
        const sorted = [...list].sort((a, b) => a - b);
        return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
      };
      const [l, s, one, user] = [figure(times.large), figure(times.small), figure(times.space), figure(times.user)];
      bySize.push({ series: name, x: 3 * SMALL, y: Math.round(s.p95 * 10) / 10 }, { series: name, x: 3 * LARGE, y: Math.round(l.p95 * 10) / 10 });
      lines.push(
        `| ${name} | ${s.p50.toFixed(1)} | ${s.p95.toFixed(1)} | ${l.p50.toFixed(1)} | **${l.p95.toFixed(1)}** | **${(l.p95 / s.p95).toFixed(2)}×** | ${one.p50.toFixed(1)} / ${one.p95.toFixed(1)} | ${user.p50.toFixed(1)} / ${user.p95.toFixed(1)} |`,
      );
    }
    const printed =
      `\nSite search (searchSiteContent, scope all, limit 20; loopback, one process; ${REQUESTS} requests per size, interleaved; build ${large.seconds.toFixed(0)} s for 3 × ${LARGE})\n\n` +
      `| query | 3 × ${SMALL} p50 ms | 3 × ${SMALL} p95 ms | 3 × ${LARGE} p50 ms | 3 × ${LARGE} p95 ms (goal ≤ 50) | p95 ratio (goal ≤ 3×) | one ${LARGE}-page space, searchSpaceContent p50 / p95 | GET /v1/user p50 / p95 |\n|---|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`;
    process.stdout.write(printed);
    for (const table of tablesFromMarkdown(printed)) recorder.table(table.title, table.columns, table.rows);
    recorder.chart({
      title: 'Site search p95 against the site’s size',
      kind: 'size',
      x: 'pages in the site (3 spaces)',
      y: 'p95 milliseconds',
      points: bySize,
    });
    await recorder.save();
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
