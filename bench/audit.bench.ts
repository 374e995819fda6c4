/* Audit log benchmarks. Standalone: `node -r @swc-node/register bench/audit.bench.ts`. Uses DATABASE_URL (default:
 * the machine's PostgreSQL) to create and drop fresh databases; everything runs on loopback.
 *
 * 1. The recording's cost on the hottest writes (space PATCH, comment post, change-request creation): two apps in
 *    this process, AUDIT_ENABLED=true and =false, each on its own database, measured in interleaved rounds
 *    (on, off, on, off…); throughput per round, medians, and the median of the per-round ratios on ÷ off.
 * 2. `listOrganizationAuditEvents` p95 (first page, a filtered page, a page 10 pages deep) at 10k and at 1M events
 *    of one organization, inserted with one INSERT … SELECT generate_series each. */
import { DataSource } from 'typeorm';
import { startBenchApp, type BenchApp } from './in-process';
import { SpacesService } from '../src/modules/spaces/spaces.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_AUDIT_REQUESTS ?? 150);
const CONCURRENCY = 4;
const LIST_REQUESTS = Number(process.env.BENCH_AUDIT_LIST_REQUESTS ?? 200);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function ok(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${res.url} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** `REQUESTS` requests, CONCURRENCY at a time; requests per second. */
async function throughput(send: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await send(next++);
    }),
  );
  return REQUESTS / ((performance.now() - started) / 1000);
}

type Workload = (bench: BenchApp, spaces: string[]) => (i: number) => Promise<unknown>;

const WORKLOADS: Record<string, Workload> = {
  'space PATCH':
    ({ base, headers }, spaces) =>
    (i) =>
      fetch(`${base}/v1/spaces/${spaces[i % spaces.length]}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `Title ${i}` }) }).then(ok),
  'comment post':
    ({ base, headers }, spaces) =>
    (i) =>
      fetch(`${base}/v1/spaces/${spaces[i % spaces.length]}/comments`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ body: { markdown: `Comment ${i}` } }),
      }).then(ok),
  'change request create':
    ({ base, headers }, spaces) =>
    (i) =>
      fetch(`${base}/v1/spaces/${spaces[i % spaces.length]}/change-requests`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ subject: `Change ${i}` }),
      }).then(ok),
};

async function spacesOf(bench: BenchApp): Promise<string[]> {
  const spaces: string[] = [];
  for (let i = 0; i < 8; i++) spaces.push((await bench.app.get(SpacesService).create(bench.user, bench.membership, { title: `Space ${i}` })).space.id);
  return spaces;
}

async function recordingCost(lines: string[]): Promise<void> {
  const on = await startBenchApp({ AUDIT_ENABLED: 'true' }, 'on@example.com');
  const off = await startBenchApp({ AUDIT_ENABLED: 'false' }, 'off@example.com');
  try {
    const spaces = { on: await spacesOf(on), off: await spacesOf(off) };
    lines.push(`| workload | on (req/s, median) | off (req/s, median) | on ÷ off (median of rounds) |`, `| --- | --- | --- | --- |`);
    for (const [name, workload] of Object.entries(WORKLOADS)) {
      const sendOn = workload(on, spaces.on);
      const sendOff = workload(off, spaces.off);
      await throughput(sendOn); // warm-up, both
      await throughput(sendOff);
      const results = { on: [] as number[], off: [] as number[], ratio: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const first = round % 2 === 0 ? 'on' : 'off';
        const a = await throughput(first === 'on' ? sendOn : sendOff);
        const b = await throughput(first === 'on' ? sendOff : sendOn);
        const [r_on, r_off] = first === 'on' ? [a, b] : [b, a];
        results.on.push(r_on);
        results.off.push(r_off);
        results.ratio.push(r_on / r_off);
      }
      lines.push(`| ${name} | ${median(results.on).toFixed(0)} | ${median(results.off).toFixed(0)} | ${median(results.ratio).toFixed(2)} |`);
    }
    const recorded = await on.app.get(DataSource).query(`SELECT count(*)::int AS n FROM audit_events`);
    const notRecorded = await off.app.get(DataSource).query(`SELECT count(*)::int AS n FROM audit_events`);
    lines.push(``, `events recorded: on ${recorded[0].n}, off ${notRecorded[0].n}`);
  } finally {
    await on.close();
    await off.close();
  }
}

async function seed(db: DataSource, organizationId: string, userId: string, from: number, to: number, days: number): Promise<void> {
  await db.query(`SELECT audit_ensure_partitions(now() - ($1 || ' days')::interval, now() + interval '1 month')`, [days + 31]);
  await db.query(
    `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source, target_type, target_id, target_label, correlation_id, execution_id, payload)
     SELECT $1, now() - (n * $4::float / $3 || ' days')::interval, gen_random_uuid(),
            (ARRAY['space.updated', 'comment.created', 'change_request.created', 'member.role_updated'])[1 + n % 4],
            'user', CASE WHEN n % 10 = 1 THEN 'other-user' ELSE $2 END, 'Bench', 'api', 'space', 'space-' || (n % 500), 'Space', 'req-' || n, 'updateSpaceById',
            '{"changes":[{"field":"title","before":"a","after":"b"}]}'
       FROM generate_series($5::int, $6::int) AS n`,
    [organizationId, userId, to, days, from, to],
  );
  await db.query(`ANALYZE audit_events`);
}

async function listP95(bench: BenchApp, query: string): Promise<number> {
  const times: number[] = [];
  const url = `${bench.base}/v1/orgs/${bench.organization.id}/audit-events${query}`;
  for (let i = 0; i < LIST_REQUESTS; i++) {
    const started = performance.now();
    await ok(await fetch(url, { headers: bench.headers }));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(percentile(times, 95) * 10) / 10;
}

async function deepPage(bench: BenchApp): Promise<string> {
  let page = '';
  for (let i = 0; i < 10; i++) {
    const body = await ok(
      await fetch(`${bench.base}/v1/orgs/${bench.organization.id}/audit-events?limit=100${page ? `&page=${page}` : ''}`, { headers: bench.headers }),
    );
    page = (body.next as { page: string }).page;
  }
  return `?limit=100&page=${page}`;
}

async function listCost(lines: string[]): Promise<void> {
  const bench = await startBenchApp({});
  try {
    const db = bench.app.get(DataSource);
    const queries: Record<string, string> = {
      'first page (limit 20)': '',
      // 5% of the events (n ≡ 1 mod 20): the actor holds 10%, the action 25%.
      'filtered: action + actor, limit 100': `?action=comment.created&actor=other-user&limit=100`,
      // No event has both: the worst case of a combination.
      'filtered: action + actor, no match': `?action=space.updated&actor=other-user`,
      'filtered: target, last 30 days': `?target=space-7&from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`,
    };
    const results: Record<string, number[]> = {};
    for (const [size, days] of [
      [10_000, 30],
      [1_000_000, 300],
    ] as const) {
      const started = performance.now();
      await seed(db, bench.organization.id, bench.user.id, size === 10_000 ? 1 : 10_001, size, days);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      lines.push(`seeded to ${size} events in ${seconds} s`);
      for (const [name, query] of Object.entries({ ...queries, '10 pages deep (limit 100)': await deepPage(bench) })) {
        (results[name] ??= []).push(await listP95(bench, query));
      }
    }
    lines.push(``, `| listOrganizationAuditEvents | p95 at 10k (ms) | p95 at 1M (ms) | ratio |`, `| --- | --- | --- | --- |`);
    for (const [name, [small, large]] of Object.entries(results)) lines.push(`| ${name} | ${small} | ${large} | ${(large / small).toFixed(2)} |`);
  } finally {
    await bench.close();
  }
}

async function main(): Promise<void> {
  const lines: string[] = [];
  if (process.env.BENCH_AUDIT !== 'list') await recordingCost(lines);
  lines.push('');
  if (process.env.BENCH_AUDIT !== 'write') await listCost(lines);
  console.log(lines.join('\n'));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
