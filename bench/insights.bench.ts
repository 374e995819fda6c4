/* Site insights benchmarks, in one run:
 * 1. Ingest over HTTP, 8 clients, batches of 250, interleaved with a bare node:http + pg server (one
 *    multi-row INSERT per batch into a table of the same columns): events/s of each and the ratio.
 * 2. "Count by hour" aggregates (last24Hours, lastYear) with 20k, 200k and 2M events all in the last
 *    hour (folded), p50 of QUERY_RUNS; then 10M events spread over the year (BENCH_INSIGHTS_YEAR=0 skips).
 * Standalone: `node -r @swc-node/register bench/insights.bench.ts`. Uses DATABASE_URL (default: the
 * machine's PostgreSQL) to create and drop its own fresh database.
 * BENCH_INSIGHTS_ROUNDS (5), BENCH_INSIGHTS_BATCHES (1000 per run: a round of 200 lasted under a second and its ratio swung 0.36–0.67), BENCH_INSIGHTS_HOUR (20000,200000,2000000),
 * BENCH_INSIGHTS_YEAR (10000000), BENCH_INSIGHTS_AT_SECOND (45: the second of the minute the hour's aggregates are
 * measured at), BENCH_INSIGHTS_EXPLAIN (1: print their plans). */
import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { newId } from '../src/common/ids';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { InsightsFoldService } from '../src/modules/insights/insights-fold.service';
import { compileAggregate } from '../src/modules/insights/insights-query.compiler';
import { InsightsRepository } from '../src/modules/insights/insights.repository';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { Site } from '../src/modules/sites/site.entity';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import { createTestDatabase } from '../test/support/database';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const list = (value: string) =>
  value
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
const ROUNDS = Number(process.env.BENCH_INSIGHTS_ROUNDS ?? 5);
const BATCHES = Number(process.env.BENCH_INSIGHTS_BATCHES ?? 1000);
const BATCH = 250;
const CLIENTS = 8;
const HOUR_VOLUMES = list(process.env.BENCH_INSIGHTS_HOUR ?? '20000,200000,2000000');
const YEAR_VOLUME = Number(process.env.BENCH_INSIGHTS_YEAR ?? 10_000_000);
const QUERY_RUNS = 15;
/** The second of the minute the aggregates are measured at (the current minute then holds that many seconds of events). */
const AT_SECOND = Number(process.env.BENCH_INSIGHTS_AT_SECOND ?? 45);
/** BENCH_INSIGHTS_EXPLAIN=1: print the plan (EXPLAIN ANALYZE, BUFFERS) of each "count by hour" query as the route runs it. */
const EXPLAIN = process.env.BENCH_INSIGHTS_EXPLAIN === '1';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const load = () => {
  const [one, five] = require('node:os').loadavg() as number[];
  return `${one.toFixed(1)}/${five.toFixed(1)}`;
};

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

/** Posts the bodies with CLIENTS concurrent clients; events per second (a 429 is retried after its Retry-After). */
async function ingest(url: string, headers: Record<string, string>, bodies: string[]): Promise<{ rate: number; refused: number }> {
  let next = 0;
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        for (;;) {
          const res = await fetch(url, { method: 'POST', headers, body });
          if (res.status === 429) {
            refused++;
            await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
            continue;
          }
          if (res.status !== 204) throw new Error(`ingest answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
          break;
        }
      }
    }),
  );
  return { rate: Math.round((bodies.length * BATCH) / ((performance.now() - started) / 1000)), refused };
}

/**
 * The baseline: node:http + pg, the token looked up (as bare-server.ts does), the body parsed, each
 * event flattened without any check, ONE multi-row INSERT (json_to_recordset) into a table of the same
 * columns (not partitioned, one index on (site_id, occurred_at)).
 */
async function bareServer(databaseUrl: string): Promise<{ server: Server; pool: Pool; url: string }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`CREATE TABLE bare_insights_events (LIKE insights_events INCLUDING DEFAULTS)`);
  await pool.query(`CREATE INDEX ON bare_insights_events (site_id, occurred_at)`);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const secret = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
        const hash = createHash('sha256').update(secret).digest('hex');
        const { rows } = await pool.query({ name: 'user-by-token', text: `SELECT user_id FROM api_tokens WHERE token_hash = $1`, values: [hash] });
        if (!rows[0]) return res.writeHead(401).end();
        const { events } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: Record<string, any>[] };
        const now = Date.now();
        const flat = events.map((e) => ({
          t: now,
          y: e.type,
          v: e.session.visitorId,
          s: e.session.sessionId,
          u: e.location.url,
          a: e.session.userAgent,
          l: e.session.language,
          r: e.session.referrer,
          p: e.location.page,
          sp: e.location.space,
        }));
        await pool.query({
          name: 'bare-insert',
          text: `INSERT INTO bare_insights_events (site_id, occurred_at, type, visitor_id, session_id, url, url_path, display_context, user_agent, language, referrer, page_id, space_id)
                 SELECT 'bare', timestamptz 'epoch' + t * interval '1 millisecond', y, v, s, u, u, 'site', a, l, r, p, sp
                 FROM json_to_recordset($1::json) AS b(t bigint, y text, v text, s text, u text, a text, l text, r text, p text, sp text)`,
          values: [JSON.stringify(flat)],
        });
        res.writeHead(204).end();
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, pool, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest` };
}

/** Waits for the given second of a minute (of the next minute when it has passed). */
async function untilSecond(second: number): Promise<void> {
  const now = Date.now();
  const minute = Math.floor(now / 60_000) * 60_000;
  const at = minute + second * 1000 > now ? minute + second * 1000 : minute + 60_000 + second * 1000;
  await new Promise((resolve) => setTimeout(resolve, at - now));
}

/** `count` events of one site between `from` and `to`, generated by PostgreSQL (one statement per million, committed each). */
async function generate(dataSource: DataSource, siteId: string, count: number, from: Date, to: Date): Promise<void> {
  for (let done = 0; done < count; done += 1_000_000) {
    await dataSource.query(
      `INSERT INTO insights_events (site_id, occurred_at, type, visitor_id, session_id, url, url_path, display_context, space_id, page_id, referrer_domain, user_agent)
       SELECT $1, $2::timestamptz + ((g - 1)::float8 / $6::float8) * ($3::timestamptz - $2::timestamptz),
              CASE WHEN g % 10 = 0 THEN 'search_open' ELSE 'page_view' END, 'v' || (g % 50000), 's' || (g % 200000),
              'https://docs.example.com/p' || (g % 200), '/p' || (g % 200), 'site', 'space-1', 'page-' || (g % 200),
              CASE WHEN g % 4 = 0 THEN 'www.google.com' END, 'bench'
       FROM generate_series($4::bigint, $5::bigint) g`,
      [siteId, from, to, done + 1, Math.min(done + 1_000_000, count), count],
    );
  }
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}
const rawRowsOf = (node: PlanNode): number =>
  (node['Relation Name']?.startsWith('insights_events') ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rawRowsOf(child), 0);

/**
 * The route's "count by hour" query as InsightsService.run compiles and runs it, under EXPLAIN ANALYZE: the
 * server's execution time (p50 of QUERY_RUNS; no HTTP, no client scheduling, so steadier on a loaded machine)
 * and the raw event rows it read. BENCH_INSIGHTS_EXPLAIN=1 also prints the last plan.
 */
async function sqlStats(dataSource: DataSource, siteId: string, range: string): Promise<{ p50: number; rawRows: number }> {
  const repository = new InsightsRepository();
  const request = { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'hour' }], range };
  const times: number[] = [];
  let rawRows = 0;
  for (let i = 0; i < QUERY_RUNS; i++) {
    await dataSource.transaction('REPEATABLE READ', async (em) => {
      const compiled = compileAggregate(request, { siteId, now: new Date(), watermark: await repository.watermark(em) });
      await em.query(`SET LOCAL jit = off`);
      const [{ 'QUERY PLAN': plans }] = await em.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${compiled.sql}`, compiled.params);
      const [plan] = plans as { Plan: PlanNode; 'Execution Time': number }[];
      times.push(plan['Execution Time']);
      rawRows = rawRowsOf(plan.Plan);
      if (EXPLAIN && i === QUERY_RUNS - 1) process.stderr.write(`\n${range}: ${JSON.stringify(plan.Plan, null, 1)}\n`);
    });
  }
  return { p50: median(times), rawRows };
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
  const bare = await bareServer(database.url);
  const lines: string[] = [];
  const out = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  try {
    const dataSource = app.get(DataSource);
    const { user } = await app.get(UsersService).findOrCreate('bench@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { organization } = await app.get(OrganizationsService).create(user, { title: 'Bench Org' });
    const newSite = async () =>
      (await dataSource.getRepository(Site).save({ id: newId(), organizationId: organization.id, title: 'Bench', createdBy: user.id })).id;

    // 1. Ingest, interleaved: bare, Quire, bare, Quire…
    const ingestSite = await newSite();
    const url = `${base}/v1/orgs/${organization.id}/sites/${ingestSite}/insights/events`;
    const bodies = Array.from({ length: BATCHES }, (_, i) => JSON.stringify({ events: batch(BATCH, i * BATCH) }));
    await ingest(url, headers, bodies.slice(0, 20)); // warm-up
    await ingest(bare.url, headers, bodies.slice(0, 20));
    const rates: { bare: number[]; quire: number[]; ratios: number[] } = { bare: [], quire: [], ratios: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const b = await ingest(bare.url, headers, bodies);
      const q = await ingest(url, headers, bodies);
      rates.bare.push(b.rate);
      rates.quire.push(q.rate);
      rates.ratios.push(q.rate / b.rate);
      out(
        `| ingest round ${round + 1} (load ${load()}) | bare ${b.rate.toLocaleString('en-US')} /s, Quire ${q.rate.toLocaleString('en-US')} /s (${q.refused} × 429) | ${(q.rate / b.rate).toFixed(2)} |`,
      );
    }
    if (ROUNDS > 0)
      out(
        `| **ingest, ${CLIENTS} clients, ${BATCHES} batches of ${BATCH}, median of ${ROUNDS}** | bare ${median(rates.bare).toLocaleString('en-US')} /s, Quire **${median(rates.quire).toLocaleString('en-US')} /s** | **${median(rates.ratios).toFixed(2)}** |`,
      );
    await app.get(InsightsFoldService).fold();

    // 2. Count by hour, all events in the last hour, at growing volumes (folded before measuring).
    const fold = app.get(InsightsFoldService);
    const aggregateTimes = async (siteId: string, range: string) => {
      const aggregateUrl = `${base}/v1/orgs/${organization.id}/sites/${siteId}/insights/events/aggregate`;
      const query = { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'hour' }], range };
      const times: number[] = [];
      for (let i = 0; i < QUERY_RUNS; i++) {
        const started = performance.now();
        const res = await fetch(aggregateUrl, { method: 'POST', headers, body: JSON.stringify(query) });
        const body = (await res.json()) as { columns: { values: number[] }[] };
        times.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`aggregate answered ${res.status}`);
        if (body.columns[1].values.length === 0) throw new Error('aggregate answered no hour');
      }
      // The total, in one group (the hourly answer stops at the default limit of 1,000 hours).
      const totalRes = await fetch(aggregateUrl, { method: 'POST', headers, body: JSON.stringify({ range }) });
      const total = ((await totalRes.json()) as { columns: { values: number[] }[] }).columns[0].values[0];
      return { p50: median(times), total };
    };
    const hourSite = await newSite();
    let stored = 0;
    const hourP50: Record<string, number[]> = { last24Hours: [], lastYear: [] };
    const sqlP50: Record<string, number[]> = { last24Hours: [], lastYear: [] };
    for (const volume of HOUR_VOLUMES) {
      // The volume spread evenly over the 58 minutes before the measurement: the bulk first (up to two minutes
      // before the end of its load), then, at the chosen second of a minute, the last two minutes at the same
      // density, so the current minute holds AT_SECOND seconds of events whatever the wall clock.
      const started = performance.now();
      const perSecond = volume / (58 * 60);
      const tail = Math.round(perSecond * 120);
      const now = Date.now();
      await generate(dataSource, hourSite, volume - tail - stored, new Date(now - 58 * 60_000), new Date(now - 120_000));
      await fold.fold();
      await dataSource.query(`VACUUM (ANALYZE) insights_events`); // autovacuum would otherwise run during the measurement
      await untilSecond(AT_SECOND);
      const end = Date.now() - 200;
      await generate(dataSource, hourSite, tail, new Date(end - 120_000), new Date(end));
      stored = volume;
      await fold.fold();
      const seconds = (performance.now() - started) / 1000;
      const [{ unfolded, current }] = await dataSource.query(
        `SELECT count(*) FILTER (WHERE ingest_xid >= (SELECT watermark FROM insights_fold_state))::int AS unfolded,
                count(*) FILTER (WHERE occurred_at >= date_trunc('minute', now()))::int AS current
         FROM insights_events WHERE site_id = $1`,
        [hourSite],
      );
      const cells: string[] = [`${unfolded} unfolded, ${current.toLocaleString('en-US')} in the current minute (at :${new Date().getUTCSeconds()})`];
      for (const range of ['last24Hours', 'lastYear']) {
        const { p50, total } = await aggregateTimes(hourSite, range);
        if (total !== stored) throw new Error(`${range} counted ${total}, stored ${stored}`);
        const sql = await sqlStats(dataSource, hourSite, range);
        hourP50[range].push(p50);
        sqlP50[range].push(sql.p50);
        cells.push(`${range} p50 **${p50.toFixed(1)} ms** (SQL ${sql.p50.toFixed(2)} ms, ${sql.rawRows.toLocaleString('en-US')} raw rows)`);
      }
      out(
        `| count by hour, ${volume.toLocaleString('en-US')} events in the last hour (load + fold ${seconds.toFixed(0)} s, load ${load()}) | ${cells.join(', ')} |`,
      );
    }
    for (const range of ['last24Hours', 'lastYear']) {
      const values = hourP50[range];
      const sql = sqlP50[range];
      if (values.length > 1)
        out(
          `| ratio largest / smallest volume, ${range} | over HTTP **${(Math.max(...values) / Math.min(...values)).toFixed(2)}**, SQL **${(Math.max(...sql) / Math.min(...sql)).toFixed(2)}** |`,
        );
    }

    // 3. A year of history.
    if (YEAR_VOLUME > 0) {
      const yearSite = await newSite();
      const started = performance.now();
      const now = new Date();
      const from = new Date(now);
      from.setUTCFullYear(from.getUTCFullYear() - 1);
      from.setTime(from.getTime() + 3_600_000);
      await dataSource.transaction((em) => app.get(InsightsRepository).ensurePartitions(em, from, now));
      await generate(dataSource, yearSite, YEAR_VOLUME, from, new Date(now.getTime() - 60_000));
      await fold.fold();
      await dataSource.query(`ANALYZE insights_events`);
      const seconds = (performance.now() - started) / 1000;
      const { p50, total } = await aggregateTimes(yearSite, 'lastYear');
      if (total !== YEAR_VOLUME) throw new Error(`lastYear counted ${total}, stored ${YEAR_VOLUME}`);
      out(
        `| count by hour, lastYear, ${YEAR_VOLUME.toLocaleString('en-US')} events over the year (load + fold ${seconds.toFixed(0)} s, load ${load()}) | p50 **${p50.toFixed(1)} ms** |`,
      );
    }

    process.stdout.write(`\nInsights benchmarks (loopback, one process)\n\n| measurement | result | ratio |\n|---|---|---|\n${lines.join('\n')}\n`);
  } finally {
    bare.server.closeAllConnections(); // fetch keeps its sockets alive
    await new Promise((resolve) => bare.server.close(resolve));
    await bare.pool.end();
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
