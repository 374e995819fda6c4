/* Site insights benchmarks: ingest rate in batches of 1,000 over HTTP, and "count by hour over the
 * last year" at 1M and 10M stored events spread over the year.
 * Standalone: `npm run -s build && node -r @swc-node/register bench/insights.bench.ts`. Uses
 * DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own fresh database.
 * BENCH_INSIGHTS_EVENTS=1000000,10000000 sets the stored volumes (each step adds to the previous). */
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { newId } from '../src/common/ids';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { compileAggregate } from '../src/modules/insights/insights-query.compiler';
import { InsightsRepository } from '../src/modules/insights/insights.repository';
import { InsightsService } from '../src/modules/insights/insights.service';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { Site } from '../src/modules/sites/site.entity';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../test/support/database';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
/** `BENCH_INSIGHTS_EVENTS=0` skips the stored-history part (ingest only). */
const VOLUMES = (process.env.BENCH_INSIGHTS_EVENTS ?? '1000000,10000000')
  .split(',')
  .map(Number)
  .filter((volume) => volume > 0);
const INGEST_BATCHES = Number(process.env.BENCH_INSIGHTS_BATCHES ?? 40);
const QUERY_RUNS = 7;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function batch(n: number, offset: number): unknown[] {
  return Array.from({ length: n }, (_, i) => {
    const k = offset + i;
    return {
      type: k % 10 === 0 ? 'search_open' : 'page_view',
      session: {
        visitorId: `v${k % 5000}`,
        sessionId: `s${k % 20000}`,
        cookies: {},
        userAgent: 'Mozilla/5.0 (bench)',
        language: 'en',
        referrer: k % 4 === 0 ? 'https://www.google.com/' : null,
      },
      location: {
        url: `https://docs.example.com/p${k % 200}?utm_source=bench`,
        siteSection: null,
        siteSpace: null,
        siteShareKey: null,
        space: 'space-1',
        revision: null,
        page: `page-${k % 200}`,
      },
    };
  });
}

/** Posts `batches` batches of 1,000 with `concurrency` clients; events per second. */
async function ingest(url: string, headers: Record<string, string>, batches: number, concurrency: number): Promise<number> {
  const bodies = Array.from({ length: batches }, (_, i) => JSON.stringify({ events: batch(1000, i * 1000) }));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await fetch(url, { method: 'POST', headers, body });
        if (res.status !== 204) throw new Error(`ingest answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      }
    }),
  );
  return Math.round((batches * 1000) / ((performance.now() - started) / 1000));
}

/**
 * Loads `count` events spread uniformly over the last year straight into the partitioned table (the
 * route only takes recent events). PostgreSQL generates them (`INSERT … SELECT generate_series`, one
 * set-based statement per million rows, in time order so each partition's index grows at its end) rather than COPY:
 * no COPY client is among the dependencies, and the server writing its own rows ships nothing over
 * the socket. Then the year's rollups are rebuilt from the raw events.
 */
async function loadHistory(dataSource: DataSource, repository: InsightsRepository, siteId: string, count: number): Promise<number> {
  const started = performance.now();
  const now = new Date();
  const from = new Date(now);
  from.setUTCFullYear(from.getUTCFullYear() - 1);
  from.setTime(from.getTime() + 3_600_000); // an hour inside the year the query asks for a moment later
  await dataSource.transaction((em) => repository.ensurePartitions(em, from, now));
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    for (let done = 0; done < count; done += 1_000_000) {
      await runner.query(
        `INSERT INTO insights_events (site_id, occurred_at, type, visitor_id, session_id, url, url_path, display_context, space_id, page_id, referrer_domain, user_agent)
         SELECT $1, $2::timestamptz + ((g - 1)::float8 / $6::float8) * ($3::timestamptz - $2::timestamptz),
                CASE WHEN g % 10 = 0 THEN 'search_open' ELSE 'page_view' END, 'v' || (g % 50000), 's' || (g % 200000),
                'https://docs.example.com/p' || (g % 200), '/p' || (g % 200), 'site', 'space-1', 'page-' || (g % 200),
                CASE WHEN g % 4 = 0 THEN 'www.google.com' END, 'bench'
         FROM generate_series($4::bigint, $5::bigint) g`,
        [siteId, from, new Date(now.getTime() - 3_600_000), done + 1, Math.min(done + 1_000_000, count), count],
      );
    }
    await runner.query(`ANALYZE insights_events`);
  } finally {
    await runner.release();
  }
  await dataSource.transaction((em) => repository.rebuildRollups(em, siteId, from, now));
  await dataSource.query(`ANALYZE insights_hourly_totals`);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const lines: string[] = [];
  try {
    const dataSource = app.get(DataSource);
    const { user } = await app.get(UsersService).findOrCreate('bench@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { organization } = await app.get(OrganizationsService).create(user, { title: 'Bench Org' });
    const newSite = async () =>
      (await dataSource.getRepository(Site).save({ id: newId(), organizationId: organization.id, title: 'Bench', createdBy: user.id })).id;

    // 1. Ingest over HTTP, batches of 1,000 (validation, one INSERT of the batch and both rollup upserts).
    const ingestSite = await newSite();
    const url = `${base}/v1/orgs/${organization.id}/sites/${ingestSite}/insights/events`;
    await ingest(url, headers, 3, 1); // warm-up
    for (const concurrency of [1, 4]) {
      const rate = await ingest(url, headers, INGEST_BATCHES, concurrency);
      lines.push(`| ingest, ${INGEST_BATCHES} batches of 1,000 over HTTP, ${concurrency} client(s) | **${rate.toLocaleString('en-US')} events/s** |`);
    }

    // 2. Count by hour over the last year, at growing volumes of one site's history.
    const site = await newSite();
    const query = { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'hour' }], range: 'lastYear' };
    const aggregateUrl = `${base}/v1/orgs/${organization.id}/sites/${site}/insights/events/aggregate`;
    let stored = 0;
    const medians: number[] = [];
    for (const volume of VOLUMES) {
      const seconds = await loadHistory(dataSource, app.get(InsightsRepository), site, volume - stored);
      stored = volume;
      const times: number[] = [];
      let hours = 0;
      for (let i = 0; i < QUERY_RUNS; i++) {
        const started = performance.now();
        const res = await fetch(aggregateUrl, { method: 'POST', headers, body: JSON.stringify(query) });
        const body = (await res.json()) as { columns: { values: number[] }[] };
        if (res.status !== 200) throw new Error(`aggregate answered ${res.status}`);
        times.push(performance.now() - started);
        hours = body.columns[0].values.length;
      }
      const totalRes = await fetch(aggregateUrl, { method: 'POST', headers, body: JSON.stringify({ range: 'lastYear' }) });
      const total = ((await totalRes.json()) as { columns: { values: number[] }[] }).columns[0].values[0];
      if (total !== stored) throw new Error(`aggregate counted ${total}, stored ${stored}`);
      medians.push(median(times));
      lines.push(
        `| count by hour, last year, ${(volume / 1e6).toFixed(0)}M events (load + rollup rebuild ${seconds.toFixed(0)} s; 8,760 hourly groups, first ${hours} answered) | rollups: median **${median(times).toFixed(1)} ms** of ${QUERY_RUNS} |`,
      );
      if (volume <= 1_000_000) {
        // The same query on raw events only, once, for comparison.
        const compiled = compileAggregate({ ...query, limit: 1000 }, { siteId: site, now: new Date(), useRollups: false });
        const started = performance.now();
        await app.get(InsightsService).run(compiled);
        lines.push(
          `| same query on raw events only (no rollups), ${(volume / 1e6).toFixed(0)}M events | ${((performance.now() - started) / 1000).toFixed(2)} s |`,
        );
      }
    }
    if (medians.length > 1)
      lines.push(
        `| ratio ${VOLUMES[VOLUMES.length - 1] / 1e6}M / ${VOLUMES[0] / 1e6}M (rollups) | **${(medians[medians.length - 1] / medians[0]).toFixed(2)}** |`,
      );

    process.stdout.write(`\nInsights benchmarks (loopback, one process)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`);
  } finally {
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
