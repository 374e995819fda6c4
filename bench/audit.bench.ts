/* Audit log benchmarks. Standalone: `node -r @swc-node/register bench/audit.bench.ts`. Uses DATABASE_URL (default:
 * the machine's PostgreSQL) to create and drop fresh databases; everything runs on loopback.
 *
 * 1. The recording's cost on the hottest writes (space PATCH, comment post, change-request creation): two apps in
 *    this process, AUDIT_ENABLED=true and =false, each on its own database, measured in interleaved rounds
 *    (on, off, on, off…); throughput per round, medians, and the median of the per-round ratios on ÷ off. Each
 *    round also counts the CPU it took (this process, and the PostgreSQL backends of the app's database, from
 *    /proc/<pid>/schedstat): it leaves out waiting, though a loaded machine inflates it too.
 *    Every round pays for chaining one round of events: the apps run without their background work (JOBS_ENABLED=false,
 *    both, so no sealer's timer falls in whichever round it happens to), and the sealer's own functions run beside each
 *    round's requests and seal what the app's previous round recorded, inside the round's time and CPU
 *    (BENCH_AUDIT_SEAL, below); the per-round ratios are printed, so their spread shows, with the share of an "on"
 *    round spent sealing after its requests. The "on" database starts with 20,000 earlier events, vacuumed and
 *    analysed, as a log in service has (an empty one is analysed again and again by autovacuum while it is small: a
 *    start-up cost, not the recording's).
 * 2. `listOrganizationAuditEvents` p95 (first page, a filtered page, a page 10 pages deep) at 10k and at 1M events
 *    of one organization, inserted with one INSERT … SELECT generate_series each, already sealed (as a log is
 *    once the sealer has caught up: the read is measured, not a sealer chaining a million events at once), then
 *    vacuumed and checkpointed; each figure the median of BENCH_AUDIT_LIST_ROUNDS (3) runs, the queries taking turns.
 *    Then the same queries for an organization of 10k events beside the one of 1M in that log, their runs alternating.
 * 3. The sealer's cost per batch against the queue's history (`sealingCost`).
 *
 * BENCH_AUDIT=write|list|seal runs one part; BENCH_AUDIT_SEAL=serial seals each round's events after its requests, =false
 * leaves the sealing out (see below); BENCH_AUDIT_WORKLOADS=patch (a part of the names, comma-separated) some workloads.
 * BENCH_AUDIT_PROCESSES=true runs the write half's two apps as server processes of their own (dist/: `npm run build`
 * first), loaded from this process: the servers' CPU per request (every thread, /proc/<pid>/task) is then apart from
 * the load's and the sealing's (this process's column), as a replica's own cost; the three processes and PostgreSQL
 * then share the machine's cores, so the ratio is the whole machine's. BENCH_AUDIT_CONCURRENCY (default 4) sets the
 * requests in flight; BENCH_CPU_PROF=<dir> writes each server process's CPU profile there when it stops (`--cpu-prof`);
 * BENCH_AUDIT_STARTS (default 1) pools the write rounds of that many starts of both apps. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { bootstrapWithCli, freePort, medianInterval, ROOT, startProcess, type Bootstrapped, type Server } from './harness';
import { startBenchApp, type BenchApp } from './in-process';
import { dataSourceOptions } from '../src/database/data-source';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { QUEUE_VACUUM_AFTER, sealOrganization, sealQueued, type SealerProgress } from '../src/modules/audit/audit-chain';
import { createTestDatabase } from '../test/support/database';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_AUDIT_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_AUDIT_CONCURRENCY ?? 4);
/** Warm-up rounds of each app before the measured ones (BENCH_AUDIT_WARMUP). */
const WARMUP = Number(process.env.BENCH_AUDIT_WARMUP ?? 3);
const LIST_REQUESTS = Number(process.env.BENCH_AUDIT_LIST_REQUESTS ?? 200);
/** Runs of each list query per log size (BENCH_AUDIT_LIST_ROUNDS), the median p95 reported. */
const LIST_ROUNDS = Number(process.env.BENCH_AUDIT_LIST_ROUNDS ?? 3);
/** BENCH_AUDIT_UNSEALED=true seeds unsealed events: the lists are then measured while the sealer chains them all. */
const UNSEALED = process.env.BENCH_AUDIT_UNSEALED === 'true';
/**
 * How a round pays for sealing. `beside` (the default): the sealer's own functions run once, from the round's start,
 * beside its requests, and seal what the app's previous round recorded, as a replica's sealer (every 5 s) seals a few
 * seconds of events at a time beside its requests: each round pays for one round of events, in CPU taken from the
 * cores its requests share, in one batch (a third of what a replica's 5 s timer takes at this rate). `serial`: the
 * round's own events after its requests, on an otherwise idle machine, so the round also waits out the sealing's round
 * trips. `false`: the rounds leave the sealing out (the recording's cost alone).
 */
const SEAL_MODE = (process.env.BENCH_AUDIT_SEAL ?? 'beside') as 'beside' | 'serial' | 'false';
const IN_PROCESSES = process.env.BENCH_AUDIT_PROCESSES === 'true';
/** BENCH_AUDIT_CONTROL=true starts the "on" app with the log off too: an A/A run, whose on ÷ off shows what the bench's own asymmetries (the seeded history, the order of rounds) are worth. */
const CONTROL = process.env.BENCH_AUDIT_CONTROL === 'true';
/** Starts of both apps whose rounds the write figures pool (BENCH_AUDIT_STARTS; see `recordingCost`). */
const STARTS = Number(process.env.BENCH_AUDIT_STARTS ?? 1);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function ok(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${res.url} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** CPU time (ns) of the PostgreSQL backends connected to `database` (their pids through `monitor`). */
async function backendCpu(monitor: Client, database: string): Promise<Map<number, number>> {
  const { rows } = await monitor.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [database]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The backend ended meanwhile, or PostgreSQL runs elsewhere: not counted.
    }
  }
  return cpu;
}

interface Round {
  /** Requests per second. */
  rate: number;
  /** CPU per request (ms): the app's node process (this one, unless the app is a server process), and its PostgreSQL backends. */
  nodeCpu: number;
  pgCpu: number;
  /** With the app in a server process of its own: this process's CPU per request (ms), the load and the sealing. */
  benchCpu?: number;
  /** The share of the round's time spent sealing after its requests were done (all of the sealing when `serial`). */
  sealAfter: number;
}

/** An app the write rounds load: in this process (`startBenchApp`), or a server process of its own (`startServerTarget`). */
interface WriteTarget {
  base: string;
  headers: Record<string, string>;
  organizationId: string;
  /** The app's database, for the seed and the sealing: the app's own data source in this process, a connection of the bench's otherwise. */
  dataSource: DataSource;
  database: string;
  /** The server process, when the app runs in one. */
  serverPid?: number;
  close(): Promise<void>;
}

function inProcessTarget(bench: BenchApp): WriteTarget {
  const dataSource = bench.app.get(DataSource);
  return {
    base: bench.base,
    headers: bench.headers,
    organizationId: bench.organization.id,
    dataSource,
    database: databaseOf(bench.databaseUrl),
    close: () => bench.close(),
  };
}

/** Quire's build (`dist/`) as a server process on a fresh database, bootstrapped by the CLI (its admin's token), rate limits off. */
async function startServerTarget(env: Record<string, string>, email: string): Promise<WriteTarget> {
  const database = await createTestDatabase();
  const serverEnv = {
    DATABASE_URL: database.url,
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
    HOST: '127.0.0.1',
    ...env,
  };
  let server: Server | undefined;
  try {
    const boot = bootstrapWithCli(serverEnv, email);
    server = await startProcess(
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF, '--cpu-prof-name', `${email}.cpuprofile`] : []),
        join(ROOT, 'dist', 'src', 'main.js'),
      ],
      serverEnv,
      await freePort(),
    );
    const dataSource = await new DataSource(dataSourceOptions(database.url, 2)).initialize();
    return serverTarget(server, boot, dataSource, database);
  } catch (error) {
    // Nothing left behind: the server (if it started) and the database.
    await server?.stop();
    await database.drop();
    throw error;
  }
}

function serverTarget(server: Server, boot: Bootstrapped, dataSource: DataSource, database: { url: string; drop(): Promise<void> }): WriteTarget {
  return {
    base: server.url,
    headers: { authorization: `Bearer ${boot.token}`, 'content-type': 'application/json' },
    organizationId: boot.organizationId,
    dataSource,
    database: databaseOf(database.url),
    serverPid: server.process.pid,
    close: async () => {
      await server.stop();
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** CPU time (ns) of every thread of process `pid` so far (the main thread's schedstat alone would leave out GC and the thread pool). */
function processCpu(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns;
}

/** Each app's sealer's count since its last vacuum of the queue (as a replica's sealer keeps it). */
const sealers = new WeakMap<DataSource, SealerProgress>();

/** Seals every event recorded and not sealed yet, through the sealer's own function (`sealQueued`), with the app's progress. */
async function sealRecorded(db: DataSource): Promise<void> {
  let progress = sealers.get(db);
  if (!progress) sealers.set(db, (progress = { dequeuedSinceVacuum: 0 }));
  await sealQueued(db, progress);
}

/** `REQUESTS` requests, CONCURRENCY at a time, with the round's sealing (SEAL_MODE): their rate and the CPU they took. */
async function throughput(target: WriteTarget, send: (i: number) => Promise<unknown>, monitor?: Client): Promise<Round> {
  let next = 0;
  const pgBefore = monitor ? await backendCpu(monitor, target.database) : new Map<number, number>();
  const serverBefore = target.serverPid ? processCpu(target.serverPid) : 0;
  const nodeBefore = process.cpuUsage();
  const started = performance.now();
  // What the app's previous round recorded (and the first few events of this one).
  const sealing = SEAL_MODE === 'beside' ? sealRecorded(target.dataSource) : undefined;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await send(next++);
    }),
  );
  const loaded = performance.now();
  await sealing;
  if (SEAL_MODE === 'serial') await sealRecorded(target.dataSource);
  const elapsed = performance.now() - started;
  const sealAfter = (elapsed - (loaded - started)) / elapsed;
  const node = process.cpuUsage(nodeBefore);
  const here = (node.user + node.system) / 1000 / REQUESTS;
  const pgAfter = monitor ? await backendCpu(monitor, target.database) : new Map<number, number>();
  let pg = 0;
  for (const [pid, ns] of pgAfter) pg += ns - (pgBefore.get(pid) ?? 0);
  const round = { rate: REQUESTS / (elapsed / 1000), pgCpu: pg / 1e6 / REQUESTS, sealAfter };
  if (!target.serverPid) return { ...round, nodeCpu: here };
  return { ...round, nodeCpu: (processCpu(target.serverPid) - serverBefore) / 1e6 / REQUESTS, benchCpu: here };
}

type Workload = (target: WriteTarget, spaces: string[]) => (i: number) => Promise<unknown>;

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

/** Eight spaces of the target's organization, made through the API (as a writer's own). */
async function spacesOf({ base, headers, organizationId }: WriteTarget): Promise<string[]> {
  const spaces: string[] = [];
  for (let i = 0; i < 8; i++) {
    const body = await ok(await fetch(`${base}/v1/orgs/${organizationId}/spaces`, { method: 'POST', headers, body: JSON.stringify({ title: `Space ${i}` }) }));
    spaces.push(body.id as string);
  }
  return spaces;
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);

function chosenWorkloads(): [string, Workload][] {
  const wanted = process.env.BENCH_AUDIT_WORKLOADS?.toLowerCase().split(',');
  return Object.entries(WORKLOADS).filter(([name]) => !wanted || wanted.some((part) => name.toLowerCase().includes(part.trim())));
}

/** One start's rounds of a workload: each round's figures, and each pair's ratios (throughput, CPU). */
interface WorkloadRounds {
  on: Round[];
  off: Round[];
  ratio: number[];
  cpuRatio: number[];
}

/**
 * Both apps started afresh (each a new process and database when BENCH_AUDIT_PROCESSES), every chosen workload's
 * warm-up and measured rounds, both apps stopped: one start's rounds per workload, and the events each app recorded.
 */
async function measureStart(): Promise<{ workloads: Map<string, WorkloadRounds>; recorded: { on: number; off: number } }> {
  const start = (env: Record<string, string>, email: string) =>
    IN_PROCESSES ? startServerTarget(env, email) : startBenchApp(env, email).then(inProcessTarget);
  // The apps' own background work off (the sealer's 5 s timer among it), alike in both: the rounds' sealing is the only
  // one, each round of events charged to one "on" round, never to an "off" round the timer happened to fall in.
  const on = await start({ AUDIT_ENABLED: CONTROL ? 'false' : 'true', JOBS_ENABLED: 'false' }, 'on@example.com');
  const off = await start({ AUDIT_ENABLED: 'false', JOBS_ENABLED: 'false' }, 'off@example.com').catch(async (error: unknown) => {
    await on.close();
    throw error;
  });
  const monitor = new Client({ connectionString: process.env.DATABASE_URL });
  await monitor.connect();
  try {
    const spaces = { on: await spacesOf(on), off: await spacesOf(off) };
    // A log that has been running: 20,000 earlier events (of another organization), vacuumed and analysed. On an empty
    // log autovacuum analyses the new partitions again and again while they are small (every 50 + 10 % rows), and
    // that work, a start-up cost, landed in the rounds of whichever workload ran first.
    await seed(on.dataSource, 'bench-history', 'bench-history-user', 1, 20_000, 30);
    const workloads = new Map<string, WorkloadRounds>();
    for (const [name, workload] of chosenWorkloads()) {
      const sendOn = workload(on, spaces.on);
      const sendOff = workload(off, spaces.off);
      // Warm-up, both, alternating: until V8 has compiled the paths each app takes, the first rounds measure the compiler.
      for (let round = 0; round < WARMUP; round++) {
        await throughput(on, sendOn);
        await throughput(off, sendOff);
      }
      const results: WorkloadRounds = { on: [], off: [], ratio: [], cpuRatio: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const first: 'on' | 'off' = round % 2 === 0 ? 'on' : 'off';
        const second: 'on' | 'off' = first === 'on' ? 'off' : 'on';
        const apps = { on: { target: on, send: sendOn }, off: { target: off, send: sendOff } };
        const a = await throughput(apps[first].target, apps[first].send, monitor);
        const b = await throughput(apps[second].target, apps[second].send, monitor);
        const [r_on, r_off] = first === 'on' ? [a, b] : [b, a];
        results.on.push(r_on);
        results.off.push(r_off);
        results.ratio.push(r_on.rate / r_off.rate);
        results.cpuRatio.push((r_off.nodeCpu + r_off.pgCpu) / (r_on.nodeCpu + r_on.pgCpu));
      }
      workloads.set(name, results);
    }
    const count = async (target: WriteTarget) => ((await target.dataSource.query(`SELECT count(*)::int AS n FROM audit_events`)) as { n: number }[])[0].n;
    return { workloads, recorded: { on: await count(on), off: await count(off) } };
  } finally {
    await monitor.end();
    await on.close();
    await off.close();
  }
}

/**
 * The recording's cost, over BENCH_AUDIT_STARTS starts of both apps (1 by default): two processes of one build differ
 * by a little in every run they make (their code's layout, what V8 made of it), so a figure meant to hold for the
 * build pools the rounds of several starts; each start's own median is printed beside the pooled one.
 */
async function recordingCost(lines: string[]): Promise<void> {
  const pooled = new Map<string, WorkloadRounds & { starts: number[] }>();
  const recorded = { on: 0, off: 0 };
  for (let index = 0; index < STARTS; index++) {
    const measured = await measureStart();
    recorded.on += measured.recorded.on;
    recorded.off += measured.recorded.off;
    for (const [name, rounds] of measured.workloads) {
      const all = pooled.get(name) ?? { on: [], off: [], ratio: [], cpuRatio: [], starts: [] };
      all.on.push(...rounds.on);
      all.off.push(...rounds.off);
      all.ratio.push(...rounds.ratio);
      all.cpuRatio.push(...rounds.cpuRatio);
      all.starts.push(median(rounds.ratio));
      pooled.set(name, all);
    }
  }
  const where = IN_PROCESSES ? 'each app a server process of its own, loaded from this one' : 'both apps in this process, with the load';
  const starts = STARTS > 1 ? ` ${STARTS} starts of both apps (figures over all their rounds);` : '';
  lines.push(
    `Recording cost: ${REQUESTS} requests per round, ${CONCURRENCY} at a time, ${WARMUP} warm-up and ${ROUNDS} measured rounds per app, alternating;${starts} ${where}`,
    ``,
    `| workload | on (req/s, median) | off (req/s, median) | on ÷ off (median of rounds, 90 % interval) | CPU ms/req on: node + pg | off: node + pg | CPU off ÷ on |${IN_PROCESSES ? ' load and sealing ms/req on / off |' : ''}${STARTS > 1 ? ' on ÷ off, each start |' : ''}`,
    `| --- | --- | --- | --- | --- | --- | --- |${IN_PROCESSES ? ' --- |' : ''}${STARTS > 1 ? ' --- |' : ''}`,
  );
  const rounds: string[] = [];
  for (const [name, results] of pooled) {
    rounds.push(
      `${name}: on ÷ off per round ${results.ratio.map((r) => r.toFixed(2)).join(' ')}; CPU off ÷ on ${results.cpuRatio.map((r) => r.toFixed(2)).join(' ')}; ` +
        `sealing after the requests (${SEAL_MODE}): ${(100 * median(results.on.map((r) => r.sealAfter))).toFixed(1)} % of an "on" round's time (median)`,
    );
    const cpu = (rounds: Round[]) => `${median(rounds.map((r) => r.nodeCpu)).toFixed(2)} + ${median(rounds.map((r) => r.pgCpu)).toFixed(2)}`;
    const load = IN_PROCESSES
      ? ` ${median(results.on.map((r) => r.benchCpu ?? 0)).toFixed(2)} / ${median(results.off.map((r) => r.benchCpu ?? 0)).toFixed(2)} |`
      : '';
    const each = STARTS > 1 ? ` ${results.starts.map((r) => r.toFixed(2)).join(', ')} |` : '';
    const [low, high] = medianInterval(results.ratio);
    lines.push(
      `| ${name} | ${median(results.on.map((r) => r.rate)).toFixed(0)} | ${median(results.off.map((r) => r.rate)).toFixed(0)} | ${median(results.ratio).toFixed(2)} (${low.toFixed(2)}–${high.toFixed(2)}) | ${cpu(results.on)} | ${cpu(results.off)} | ${median(results.cpuRatio).toFixed(2)} |${load}${each}`,
    );
  }
  lines.push(``, ...rounds, ``, `events recorded: on ${recorded.on}, off ${recorded.off}`);
}

/**
 * Events `from`..`to` of one organization over the last `days` days (event n is n·days/to days old), sealed as the
 * sealer leaves them (a link each in `audit_chain_links`; the hashes are placeholders, nothing verifies them here), or queued unsealed.
 */
async function seed(db: DataSource, organizationId: string, userId: string, from: number, to: number, days: number): Promise<void> {
  await db.query(`SELECT audit_ensure_partitions(now() - ($1 || ' days')::interval, now() + interval '1 month')`, [days + 31]);
  await db.query(
    `WITH event AS (
       INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source, target_type, target_id, target_label, correlation_id, execution_id, payload)
       SELECT $1, now() - (n * $4::float / $3 || ' days')::interval, gen_random_uuid(),
              (ARRAY['space.updated', 'comment.created', 'change_request.created', 'member.role_updated'])[1 + n % 4],
              'user', CASE WHEN n % 10 = 1 THEN 'other-user' ELSE $2 END, 'Bench', 'api', 'space', 'space-' || (n % 500), 'Space', 'req-' || n, 'updateSpaceById',
              '{"changes":[{"field":"title","before":"a","after":"b"}]}'
         FROM generate_series($5::int, $6::int) AS n
       RETURNING organization_id, occurred_at, id, correlation_id, action, actor_id, target_id),
     sealed AS (
       INSERT INTO audit_chain_links (organization_id, seq, occurred_at, id, prev_hash, hash, action, actor_id, target_id)
       SELECT organization_id, 1000000000 - substr(correlation_id, 5)::int, occurred_at, id, md5(correlation_id || '+'), md5(correlation_id), action, actor_id, target_id
         FROM event WHERE $7)
     INSERT INTO audit_unsealed (organization_id, occurred_at, id) SELECT organization_id, occurred_at, id FROM event WHERE NOT $7`,
    [organizationId, userId, to, days, from, to, !UNSEALED],
  );
  // As autovacuum leaves a table that size (otherwise its first pass over the fresh rows runs during the measures).
  await db.query(`VACUUM ANALYZE audit_events`);
  await db.query(`VACUUM ANALYZE audit_chain_links`);
  await db.query(`VACUUM ANALYZE audit_unsealed`);
  // The seed's dirty pages written out now, not by a checkpoint during the measures (a million rows: seconds of writes).
  await db.query(`CHECKPOINT`);
}

/**
 * p95 of `query`, each request followed by one of the action catalogue (same route stack and
 * authorization, no query of the log): the control's p95 says how much of a figure the machine's load is.
 */
async function listP95(bench: BenchApp, query: string, organizationId = bench.organization.id): Promise<{ list: number; control: number }> {
  const times: number[] = [];
  const control: number[] = [];
  const url = `${bench.base}/v1/orgs/${organizationId}/audit-events${query}`;
  const actions = `${bench.base}/v1/orgs/${organizationId}/audit-event-actions`;
  for (let i = 0; i < LIST_REQUESTS; i++) {
    let started = performance.now();
    await ok(await fetch(url, { headers: bench.headers }));
    times.push(performance.now() - started);
    started = performance.now();
    await ok(await fetch(actions, { headers: bench.headers }));
    control.push(performance.now() - started);
  }
  const p95 = (values: number[]) =>
    Math.round(
      percentile(
        [...values].sort((a, b) => a - b),
        95,
      ) * 10,
    ) / 10;
  return { list: p95(times), control: p95(control) };
}

async function deepPage(bench: BenchApp, organizationId = bench.organization.id): Promise<string> {
  let page = '';
  for (let i = 0; i < 10; i++) {
    const body = await ok(
      await fetch(`${bench.base}/v1/orgs/${organizationId}/audit-events?limit=100${page ? `&page=${page}` : ''}`, { headers: bench.headers }),
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
    const results: Record<string, { list: number; control: number }[]> = {};
    for (const [size, days] of [
      [10_000, 30],
      [1_000_000, 300],
    ] as const) {
      const started = performance.now();
      await seed(db, bench.organization.id, bench.user.id, size === 10_000 ? 1 : 10_001, size, days);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      lines.push(`seeded to ${size} events in ${seconds} s`);
      // Each query's p95 (and its control's) is the median of LIST_ROUNDS runs, the queries taking turns, so a
      // moment of the shared machine's load lands in one run of one query, not in the figure.
      const sized = Object.entries({ ...queries, '10 pages deep (limit 100)': await deepPage(bench) });
      const runs = new Map<string, { list: number; control: number }[]>(sized.map(([name]) => [name, []]));
      for (let round = 0; round < LIST_ROUNDS; round++) for (const [name, query] of sized) runs.get(name)!.push(await listP95(bench, query));
      for (const [name, measured] of runs) {
        (results[name] ??= []).push({ list: median(measured.map((m) => m.list)), control: median(measured.map((m) => m.control)) });
      }
    }
    lines.push(
      ``,
      `| listOrganizationAuditEvents | p95 at 10k (ms) | p95 at 1M (ms) | ratio | control p95 10k / 1M (ms) | ratio of (p95 − control) |`,
      `| --- | --- | --- | --- | --- | --- |`,
    );
    for (const [name, [small, large]] of Object.entries(results)) {
      const excess = (large.list - large.control) / Math.max(0.1, small.list - small.control);
      lines.push(
        `| ${name} | ${small.list} | ${large.list} | ${(large.list / small.list).toFixed(2)} | ${small.control} / ${large.control} | ${excess.toFixed(2)} |`,
      );
    }

    // The same queries for an organization of 10k events beside the one of 1M, in one log, their runs taking turns:
    // a moment of the machine's load then falls on both sizes alike (the log above grows between its two figures).
    const { organization: small } = await bench.app.get(OrganizationsService).create(bench.user, { title: 'Bench 10k' });
    await seed(db, small.id, bench.user.id, 1, 10_000, 30);
    const sides = { large: bench.organization.id, small: small.id };
    const deep = { large: await deepPage(bench, sides.large), small: await deepPage(bench, sides.small) };
    const paired = new Map<string, { large: number[]; small: number[] }>();
    for (let round = 0; round < LIST_ROUNDS; round++) {
      for (const [name, query] of [...Object.entries(queries), ['10 pages deep (limit 100)', null] as const]) {
        const measured = paired.get(name) ?? { large: [], small: [] };
        paired.set(name, measured);
        for (const side of round % 2 === 0 ? (['large', 'small'] as const) : (['small', 'large'] as const)) {
          measured[side].push((await listP95(bench, query ?? deep[side], sides[side])).list);
        }
      }
    }
    lines.push(
      ``,
      `Two organizations in one log of 1,010,000 events, their runs alternating (median of ${LIST_ROUNDS}):`,
      ``,
      `| listOrganizationAuditEvents | p95, organization of 10k (ms) | p95, organization of 1M (ms) | ratio |`,
      `| --- | --- | --- | --- |`,
    );
    for (const [name, measured] of paired) {
      const [smallP95, largeP95] = [median(measured.small), median(measured.large)];
      lines.push(`| ${name} | ${smallP95} | ${largeP95} | ${(largeP95 / smallP95).toFixed(2)} |`);
    }
  } finally {
    await bench.close();
  }
}

/** Events per sealing batch in `sealingCost`: a fifth of a second of events at 200 writes a second. */
const SEAL_BATCH_SIZE = 40;
/** The most dead queue entries a sealer leaves before it vacuums the queue (more only between autovacuum's passes with several replicas). */
const SEAL_HISTORY = Number(process.env.BENCH_AUDIT_SEAL_HISTORY ?? QUEUE_VACUUM_AFTER);

/** `count` unsealed events of `organizationId`, one millisecond apart, ending now (as writers leave them in the queue). */
async function queueEvents(db: DataSource, organizationId: string, from: number, count: number): Promise<void> {
  await db.query(
    `WITH event AS (
       INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, actor_label, source, target_type, target_id, target_label, correlation_id, execution_id, payload)
       SELECT $1, now() - (($2::int + $3::int - n) || ' milliseconds')::interval, gen_random_uuid(), 'space.updated', 'user', 'bench-user', 'Bench', 'api',
              'space', 'space-' || (n % 50), 'Space', 'req-' || n, 'updateSpaceById', '{"changes":[{"field":"title","before":"a","after":"b"}]}'
         FROM generate_series($2::int, $2::int + $3::int - 1) AS n
       RETURNING organization_id, occurred_at, id)
     INSERT INTO audit_unsealed (organization_id, occurred_at, id) SELECT organization_id, occurred_at, id FROM event`,
    [organizationId, from, count],
  );
}

/**
 * 3. The sealer's cost per batch of SEAL_BATCH_SIZE events against the queue's history: one organization whose queue
 *    is fresh, one whose SEAL_HISTORY earlier events went through the queue in such batches (their queue rows deleted
 *    and left dead, as just before the sealer vacuums the queue, the tables never analysed), their batches alternating. Wall time,
 *    and CPU of this process and of the database's backends, medians of BENCH_AUDIT_SEAL_BATCHES (41) batches each.
 */
async function sealingCost(lines: string[]): Promise<void> {
  const database = await createTestDatabase();
  const db = await new DataSource(dataSourceOptions(database.url, 2)).initialize();
  const monitor = new Client({ connectionString: process.env.DATABASE_URL });
  await monitor.connect();
  try {
    await db.query(`SELECT audit_ensure_partitions(now() - interval '1 month', now() + interval '1 month')`);
    let next = 1;
    for (let queued = 0; queued < SEAL_HISTORY; queued += SEAL_BATCH_SIZE) {
      await queueEvents(db, 'deep-queue', next, SEAL_BATCH_SIZE);
      next += SEAL_BATCH_SIZE;
      await sealOrganization(db, 'deep-queue');
    }
    const batches = Number(process.env.BENCH_AUDIT_SEAL_BATCHES ?? 41);
    const measured = { fresh: [] as number[][], deep: [] as number[][] };
    for (let batch = 0; batch < batches + 3; batch++) {
      for (const [key, organizationId] of [
        ['fresh', 'fresh-queue'],
        ['deep', 'deep-queue'],
      ] as const) {
        await queueEvents(db, organizationId, next, SEAL_BATCH_SIZE);
        next += SEAL_BATCH_SIZE;
        const pgBefore = await backendCpu(monitor, databaseOf(database.url));
        const node = process.cpuUsage();
        const started = performance.now();
        const sealed = await sealOrganization(db, organizationId);
        const wall = performance.now() - started;
        const nodeUsed = process.cpuUsage(node);
        const pgAfter = await backendCpu(monitor, databaseOf(database.url));
        if (sealed !== SEAL_BATCH_SIZE) throw new Error(`sealed ${sealed} events, not ${SEAL_BATCH_SIZE}`);
        let pg = 0;
        for (const [pid, ns] of pgAfter) pg += ns - (pgBefore.get(pid) ?? ns);
        // The first batches of each warm the paths up.
        if (batch >= 3) measured[key].push([wall, (nodeUsed.user + nodeUsed.system) / 1000, pg / 1e6]);
      }
    }
    const at = (rows: number[][], column: number) => median(rows.map((row) => row[column]));
    lines.push(
      `Sealing a batch of ${SEAL_BATCH_SIZE} events, medians of ${batches} batches each, alternating`,
      ``,
      `| queue | wall (ms) | node CPU (ms) | PostgreSQL CPU (ms) |`,
      `| --- | --- | --- | --- |`,
      ...(['fresh', 'deep'] as const).map(
        (key) =>
          `| ${key === 'fresh' ? 'fresh' : `after ${SEAL_HISTORY.toLocaleString('en')} events`} | ${at(measured[key], 0).toFixed(2)} | ${at(measured[key], 1).toFixed(2)} | ${at(measured[key], 2).toFixed(2)} |`,
      ),
      ``,
      `deep ÷ fresh, wall: ${(at(measured.deep, 0) / at(measured.fresh, 0)).toFixed(2)}`,
    );
  } finally {
    await monitor.end();
    await db.destroy();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const lines: string[] = [];
  if (!process.env.BENCH_AUDIT || process.env.BENCH_AUDIT === 'write') await recordingCost(lines);
  lines.push('');
  if (!process.env.BENCH_AUDIT || process.env.BENCH_AUDIT === 'list') await listCost(lines);
  lines.push('');
  if (!process.env.BENCH_AUDIT || process.env.BENCH_AUDIT === 'seal') await sealingCost(lines);
  console.log(lines.join('\n'));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
