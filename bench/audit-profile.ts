/* Where a recorded audit event's cost goes, on one write workload. Standalone:
 *   AUDIT_ENABLED=true|false node -r @swc-node/register bench/audit-profile.ts
 * One app in this process on a fresh database; after a warm-up, PROFILE_REQUESTS (default 1500) requests of
 * PROFILE_WORKLOAD (patch, comment, cr; default patch), PROFILE_CONCURRENCY (default 4) at a time, then: the statements sent per request (a
 * counting wrapper on pg's Client.query), the node and PostgreSQL CPU per request (this process; the database's
 * backends from /proc/<pid>/schedstat; the sealing of the window's events included unless PROFILE_SEAL=false), and the
 * top frames of a CPU profile of the window (node:inspector) by self time. PROFILE_DIR keeps the .cpuprofile. The
 * sealer's timer is off (JOBS_ENABLED=false): the window seals once, at its end. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { startBenchApp, type BenchApp } from './in-process';
import { summarize } from './profile';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { AuditSealerService } from '../src/modules/audit/audit-sealer.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 1500);
const WORKLOAD = process.env.PROFILE_WORKLOAD ?? 'patch';
const SEAL = process.env.PROFILE_SEAL !== 'false';
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 4);

const statements = new Map<string, number>();
const query = Client.prototype.query as (...args: unknown[]) => unknown;
Client.prototype.query = function (this: Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
  const key = text.replace(/\s+/g, ' ').slice(0, 90);
  statements.set(key, (statements.get(key) ?? 0) + 1);
  return query.apply(this, args);
} as typeof Client.prototype.query;

function send(bench: BenchApp, spaces: string[]): (i: number) => Promise<unknown> {
  const { base, headers } = bench;
  const post = (path: string, body: unknown, method = 'POST') =>
    fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) }).then(async (res) => {
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return res.text();
    });
  if (WORKLOAD === 'comment') return (i) => post(`/v1/spaces/${spaces[i % 8]}/comments`, { body: { markdown: `Comment ${i}` } });
  if (WORKLOAD === 'cr') return (i) => post(`/v1/spaces/${spaces[i % 8]}/change-requests`, { subject: `Change ${i}` });
  return (i) => post(`/v1/spaces/${spaces[i % 8]}`, { title: `Title ${i}` }, 'PATCH');
}

async function run(fn: (i: number) => Promise<unknown>, n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function backendCpu(monitor: Client, database: string): Promise<number> {
  const { rows } = await monitor.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [database]);
  let ns = 0;
  for (const { pid } of rows) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // ended meanwhile
    }
  }
  return ns;
}

async function main(): Promise<void> {
  const bench = await startBenchApp({ AUDIT_ENABLED: process.env.AUDIT_ENABLED ?? 'true', JOBS_ENABLED: 'false' });
  const monitor = new Client({ connectionString: process.env.DATABASE_URL });
  await monitor.connect();
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  try {
    const spaces: string[] = [];
    for (let i = 0; i < 8; i++) spaces.push((await bench.app.get(SpacesService).create(bench.user, bench.membership, { title: `Space ${i}` })).space.id);
    const fn = send(bench, spaces);
    await run(fn, 500);
    const sealer = bench.app.get(AuditSealerService);
    if (SEAL) await sealer.sealAll();
    statements.clear();
    const session = new Session();
    session.connect();
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
    await post('Profiler.enable');
    await post('Profiler.start');
    const pgBefore = await backendCpu(monitor, database);
    const nodeBefore = process.cpuUsage();
    const started = performance.now();
    await run(fn, REQUESTS);
    if (SEAL) await sealer.sealAll();
    const elapsed = performance.now() - started;
    const node = process.cpuUsage(nodeBefore);
    const pg = (await backendCpu(monitor, database)) - pgBefore;
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'audit-profile-'));
    const file = join(dir, `audit-${process.env.AUDIT_ENABLED ?? 'true'}-${WORKLOAD}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const events = await bench.app.get(DataSource).query(`SELECT count(*)::int AS n FROM audit_events`);
    console.log(
      `AUDIT_ENABLED=${process.env.AUDIT_ENABLED ?? 'true'} ${WORKLOAD}: ${REQUESTS} requests, ${(REQUESTS / (elapsed / 1000)).toFixed(0)} req/s, ` +
        `CPU ms/req node ${((node.user + node.system) / 1000 / REQUESTS).toFixed(3)} pg ${(pg / 1e6 / REQUESTS).toFixed(3)}; events ${events[0].n}`,
    );
    console.log(`\nstatements per request:`);
    for (const [text, n] of [...statements.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${(n / REQUESTS).toFixed(3)}  ${text}`);
    console.log(`\n${file}\n${summarize(file, Number(process.env.PROFILE_TOP ?? 30))}`);
  } finally {
    await monitor.end();
    await bench.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
