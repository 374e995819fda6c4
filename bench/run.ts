import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '../test/support/database';
import { BenchRecorder, bootstrapWithCli, Figures, freePort, load, median, resultsDir, ROOT, row, Server, startProcess, tablesFromMarkdown } from './harness';

/**
 * `npm run bench`: Quire against a bare node:http + pg server answering the same lookups, side
 * by side in one run, on loopback, on one fresh database; then the embedded cold start. The figures go to
 * bench/results/main.json (then `npm run bench:report` renders bench/results/report.md).
 * BENCH_SECONDS (default 10) sets each measurement's length, BENCH_ROUNDS (default 3) how many
 * alternating rounds (Quire, bare, Quire, bare…) each route gets. Then the module benches
 * (`bench/*.bench.ts`) run, each in its own process, in name order: all of them with BENCH_ALL=true
 * (`npm run bench:all`; BENCH_CONTENT=false skips the content one), or those BENCH_ONLY=content,insights
 * names. BENCH_MAIN=false skips the comparison, the profile and the cold start (module benches only). A
 * module bench that writes no result of its own is recorded from the tables it prints.
 * Between the comparison and the cold start, bench/profile.ts profiles Quire on the same two routes
 * (PROFILE_SECONDS each, default 5) and prints the top frames. The comparison's rounds also measure the
 * stack's floor, a minimal NestJS app (bench/nest-floor.ts; BENCH_FLOOR=false leaves it out).
 * Then a page read, a page list and ten concurrent renames of one space (`readsAndWrites`; BENCH_BASE=<another build's
 * main.js> runs that build in the same alternating rounds, for a before and after).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** The comparison's tables and charts: medians per route for Quire, the floor and the bare server, and the ratios. */
function record(recorder: BenchRecorder, measured: { name: string; quire: Figures[]; bare: Figures[]; floor: Figures[] }[]): void {
  const servers = (m: (typeof measured)[number]) =>
    [
      ['Quire', m.quire],
      ['NestJS floor', m.floor],
      ['bare node:http + pg', m.bare],
    ].filter(([, figures]) => figures.length) as [string, Figures[]][];
  const of = (figures: Figures[], key: 'requestsPerSecond' | 'p50' | 'p99') => Math.round(median(figures.map((f) => f[key])));
  const ratio = (figures: Figures[], bare: Figures[]) => median(figures.map((f, round) => f.requestsPerSecond / bare[round].requestsPerSecond)).toFixed(2);
  recorder.table(
    `Throughput and latency: ${ROUNDS} alternating rounds of ${SECONDS} s per server, 10 connections, loopback, same database; medians (a ratio is the median of the per-round ratios)`,
    ['route', 'server', 'req/s', 'p50 ms', 'p99 ms', '÷ bare req/s', '÷ floor req/s'],
    measured.flatMap((m) =>
      servers(m).map(([server, figures]) => [
        m.name,
        server,
        of(figures, 'requestsPerSecond'),
        of(figures, 'p50'),
        of(figures, 'p99'),
        ratio(figures, m.bare),
        m.floor.length ? ratio(figures, m.floor) : '—',
      ]),
    ),
  );
  recorder.chart({
    title: 'Throughput per route (median req/s, 10 connections)',
    kind: 'bars',
    x: 'route',
    y: 'requests per second',
    points: measured.flatMap((m) => servers(m).map(([series, figures]) => ({ series, x: m.name, y: of(figures, 'requestsPerSecond') }))),
  });
  recorder.chart({
    title: 'Latency per route (median of the rounds’ p50 and p99)',
    kind: 'bars',
    x: 'route',
    y: 'milliseconds',
    points: measured.flatMap((m) =>
      servers(m).flatMap(([server, figures]) => [
        { series: `${server} p50`, x: m.name, y: of(figures, 'p50') },
        { series: `${server} p99`, x: m.name, y: of(figures, 'p99') },
      ]),
    ),
  });
}

async function compareWithBaseline(recorder: BenchRecorder): Promise<void> {
  const database = await createTestDatabase();
  try {
    const env = { DATABASE_URL: database.url, MIGRATIONS_RUN: 'false', LOG_LEVEL: 'silent' };
    const boot = bootstrapWithCli(env);
    const headers = { authorization: `Bearer ${boot.token}` };

    // Quire as it runs by default: one JSON log line per request (LOG_LEVEL=info).
    const quirePort = await freePort();
    // Rate limits stay on (their cost is part of every request) but high enough that the load is never refused.
    const limits = { RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_TOKEN: '1000000000' };
    const quire = await startProcess([MAIN], { ...env, ...limits, LOG_LEVEL: 'info', HOST: '127.0.0.1' }, quirePort);
    const barePort = await freePort();
    const bare = await startProcess(['-r', '@swc-node/register', join(__dirname, 'bare-server.ts')], { DATABASE_URL: database.url }, barePort);
    // The stack's floor (bench/nest-floor.ts): a minimal NestJS app doing only the bare server's work.
    const floor =
      process.env.BENCH_FLOOR === 'false'
        ? undefined
        : await startProcess(['-r', '@swc-node/register', join(__dirname, 'nest-floor.ts'), 'serve'], { DATABASE_URL: database.url }, await freePort());

    const spaceId = await createSpace(quire.url, boot.organizationId, headers);
    const routes: [string, string][] = [['GET /v1/user', '/v1/user']];
    if (spaceId) routes.push(['GET /v1/spaces/{id}', `/v1/spaces/${spaceId}`]);

    const lines: string[] = [];
    const floorLines: string[] = [];
    const measured: { name: string; quire: Figures[]; bare: Figures[]; floor: Figures[] }[] = [];
    const quireFloorLines: string[] = [];
    for (const [name, path] of routes) {
      await load(quire.url + path, headers, 2); // warm-up
      await load(bare.url + path, headers, 2);
      if (floor) await load(floor.url + path, headers, 2);
      const q: Figures[] = [];
      const b: Figures[] = [];
      const f: Figures[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        q.push(await load(quire.url + path, headers, SECONDS));
        b.push(await load(bare.url + path, headers, SECONDS));
        if (floor) f.push(await load(floor.url + path, headers, SECONDS));
        const [qr, br] = [q[round], b[round]];
        if (qr.non2xx || br.non2xx || qr.errors || br.errors)
          throw new Error(`${name}: non-2xx or errors (quire ${qr.non2xx}/${qr.errors}, bare ${br.non2xx}/${br.errors})`);
        if (floor && (f[round].non2xx || f[round].errors)) throw new Error(`${name}: the floor answered non-2xx or errors`);
      }
      lines.push(row(name, q, b));
      measured.push({ name, quire: q, bare: b, floor: f });
      if (floor) {
        floorLines.push(row(name, f, b));
        // The goal of the hot path: Quire ÷ the floor, per round (both measured in the same round).
        const ratios = q.map((figures, round) => figures.requestsPerSecond / f[round].requestsPerSecond);
        quireFloorLines.push(`| ${name} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) |`);
      }
    }
    await bare.stop();
    await floor?.stop();
    const readWrite = await readsAndWrites(quire, database.url, env, limits, boot.organizationId, headers);
    await quire.stop();

    process.stdout.write(`\nThroughput: ${ROUNDS} alternating rounds of ${SECONDS}s, 10 connections, loopback, same database; medians\n\n`);
    process.stdout.write(
      '| route | Quire req/s | Quire p50 ms | Quire p99 ms | bare req/s | bare p50 ms | bare p99 ms | Quire/bare (per round) |\n|---|---|---|---|---|---|---|---|\n',
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    if (floorLines.length) {
      // The best Quire could reach on this stack (docs/scaling.md, "The floor of the stack").
      process.stdout.write('\nThe floor, a minimal NestJS app (bench/nest-floor.ts), in the same rounds:\n\n');
      process.stdout.write(
        '| route | floor req/s | floor p50 ms | floor p99 ms | bare req/s | bare p50 ms | bare p99 ms | floor/bare (per round) |\n|---|---|---|---|---|---|---|---|\n',
      );
      process.stdout.write(`${floorLines.join('\n')}\n`);
      process.stdout.write(`\nQuire ÷ the floor, req/s in the same rounds:\n\n| route | Quire/floor (per round) |\n|---|---|\n${quireFloorLines.join('\n')}\n`);
    }
    record(recorder, measured);
    process.stdout.write(readWrite);
    for (const table of tablesFromMarkdown(readWrite)) recorder.table(table.title, table.columns, table.rows);
  } finally {
    await database.drop();
  }
}

/** user + system CPU time of a process so far, in microseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return 0; // a backend that ended meanwhile
  }
}

/** CPU of the database's backends (all but `probe`'s own), by pid. */
async function backendCpu(probe: Client): Promise<Map<number, number>> {
  const { rows } = await probe.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  return new Map(rows.map(({ pid }) => [pid, cpuMicros(pid)]));
}

interface ServerFigures extends Figures {
  /** The server process's CPU per request, µs. */
  serverCpu: number;
  /** The PostgreSQL backends' CPU per request, µs (backends present at the end, from their CPU at the start or 0). */
  databaseCpu: number;
}

async function measured(server: Server, probe: Client, url: string, headers: Record<string, string>, seconds: number, request?: Parameters<typeof load>[4]) {
  const pid = server.process.pid as number;
  const [serverBefore, databaseBefore] = [cpuMicros(pid), await backendCpu(probe)];
  const figures = await load(url, headers, seconds, 10, request);
  const serverCpu = cpuMicros(pid) - serverBefore;
  let databaseCpu = 0;
  for (const [backend, cpu] of await backendCpu(probe)) databaseCpu += cpu - (databaseBefore.get(backend) ?? 0);
  const requests = Math.max(1, figures.requestsPerSecond * seconds);
  if (figures.non2xx || figures.errors) throw new Error(`${url}: ${figures.non2xx} non-2xx, ${figures.errors} errors`);
  return { ...figures, serverCpu: serverCpu / requests, databaseCpu: databaseCpu / requests };
}

/**
 * Two rows past the hot path: a page read (`GET /v1/spaces/{id}/content/page/{pageId}`, a page of
 * two sub-pages, with the server's CPU and the PostgreSQL backends' CPU per request, read from
 * /proc/<pid>/stat over each round) and ten concurrent renames of one space (`PATCH /v1/spaces/{id}`,
 * ten connections, each request waiting for the space's row lock: req/s and p99). With BENCH_BASE
 * (another build's `dist/src/main.js`) that build runs too, its rounds alternating with this one's.
 */
async function readsAndWrites(
  quire: Server,
  databaseUrl: string,
  env: Record<string, string>,
  limits: Record<string, string>,
  organizationId: string,
  headers: Record<string, string>,
): Promise<string> {
  const post = async (url: string, body: unknown) => {
    const res = await fetch(`${quire.url}${url}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown> & { id: string }>;
  };
  const space = (await post(`/v1/orgs/${organizationId}/spaces`, { title: 'Bench pages' })).id;
  const renamed = (await post(`/v1/orgs/${organizationId}/spaces`, { title: 'Bench renames' })).id;
  const cr = (await post(`/v1/spaces/${space}/change-requests`, { subject: 'pages' })).id;
  const body = (n: number) => `# Section ${n}\n\n${'A paragraph of the bench page, with [a link](https://example.com) and `code`. '.repeat(8)}\n`;
  const written = (await post(`/v1/spaces/${space}/change-requests/${cr}/content?compat=false`, {
    changes: [{ operation: 'insert_page', title: 'Guide', slug: 'guide', document: { markdown: body(1) } }],
  })) as unknown as { changes: { page: { id: string } }[] };
  const pageId = written.changes[0].page.id;
  await post(`/v1/spaces/${space}/change-requests/${cr}/content?compat=false`, {
    changes: [1, 2].map((n) => ({ operation: 'insert_page', title: `Part ${n}`, slug: `part-${n}`, into: pageId, document: { markdown: body(n + 1) } })),
  });
  await post(`/v1/spaces/${space}/change-requests/${cr}/merge`, {});

  const servers: [string, Server][] = [['Quire', quire]];
  if (process.env.BENCH_BASE)
    servers.push(['base', await startProcess([process.env.BENCH_BASE], { ...env, ...limits, LOG_LEVEL: 'info', HOST: '127.0.0.1' }, await freePort())]);
  const probe = new Client({ connectionString: databaseUrl });
  await probe.connect();
  const rows: string[] = [];
  try {
    const cases: [string, string, Parameters<typeof load>[4]][] = [
      ['page read `GET …/content/page/{id}`', `/v1/spaces/${space}/content/page/${pageId}`, undefined],
      ['page list `GET …/content/pages`', `/v1/spaces/${space}/content/pages`, undefined],
      ['10 concurrent renames `PATCH /v1/spaces/{id}`', `/v1/spaces/${renamed}`, { method: 'PATCH', body: { title: 'Renamed by the bench' } }],
    ];
    for (const [name, path, request] of cases) {
      for (const [, server] of servers) await load(server.url + path, headers, 2, 10, request); // warm-up
      const results = new Map<string, ServerFigures[]>(servers.map(([label]) => [label, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < servers.length; i++) {
          const [label, server] = servers[(i + round) % servers.length];
          results.get(label)!.push(await measured(server, probe, server.url + path, headers, SECONDS, request));
        }
      }
      for (const [label, figures] of results) {
        const m = (key: keyof ServerFigures) => Math.round(median(figures.map((f) => f[key])));
        rows.push(`| ${name} | ${label} | ${m('requestsPerSecond')} | ${m('p50')} | ${m('p99')} | ${m('serverCpu')} | ${m('databaseCpu')} |`);
      }
    }
  } finally {
    await probe.end();
    for (const [label, server] of servers) if (label !== 'Quire') await server.stop();
  }
  return (
    `\nPage read and concurrent writes: ${ROUNDS} alternating rounds of ${SECONDS}s, 10 connections; medians; CPU per request from /proc (server process; PostgreSQL backends)\n\n` +
    '| row | build | req/s | p50 ms | p99 ms | server CPU µs/request | PostgreSQL CPU µs/request |\n|---|---|---|---|---|---|---|\n' +
    `${rows.join('\n')}\n`
  );
}

/** A space to read, through the API (absent until the spaces module exists). */
async function createSpace(base: string, organizationId: string, headers: Record<string, string>): Promise<string | undefined> {
  const res = await fetch(`${base}/v1/orgs/${organizationId}/spaces`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench space' }),
  });
  return res.status === 201 ? ((await res.json()) as { id: string }).id : undefined;
}

/** Time from process start to `/health/ready` = 200 on the embedded database: first start (initdb) and a restart. */
async function coldStart(recorder: BenchRecorder): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-'));
  chmodSync(dataDir, 0o755);
  const measure = async () => {
    const port = await freePort();
    const started = Date.now();
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() - started > 120_000) throw new Error('not ready after 120 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const elapsed = Date.now() - started;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    return elapsed;
  };
  try {
    const first = await measure();
    const again = await measure();
    process.stdout.write(`\nStart to /health/ready on the embedded database: first start (initdb + migrations) ${first} ms, restart ${again} ms\n`);
    recorder.table(
      'Start to /health/ready on the embedded database',
      ['start', 'ms'],
      [
        ['first start (initdb + migrations)', first],
        ['restart', again],
      ],
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (process.env.BENCH_MAIN !== 'false') {
    if (!existsSync(MAIN)) throw new Error('build first: npm run build');
    const recorder = new BenchRecorder(
      'main',
      'Quire against the bare server and the stack’s floor; cold start',
      { BENCH_SECONDS: SECONDS, BENCH_ROUNDS: ROUNDS, connections: 10 },
      'npm run bench (bench/run.ts)',
    );
    await compareWithBaseline(recorder);
    // Where the time of the two hot-path routes goes: a --cpu-prof profile's top frames (BENCH_PROFILE=false skips it).
    if (process.env.BENCH_PROFILE !== 'false') {
      execFileSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'profile.ts')], {
        stdio: 'inherit',
        cwd: ROOT,
        env: { ...process.env, PROFILE_SECONDS: process.env.PROFILE_SECONDS ?? '5' },
      });
    }
    await coldStart(recorder);
    await recorder.save();
  }
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  for (const file of readdirSync(__dirname)
    .filter((name) => name.endsWith('.bench.ts'))
    .sort()) {
    const name = file.slice(0, -'.bench.ts'.length);
    if (only ? !only.includes(name) : process.env.BENCH_ALL !== 'true' || (name === 'content' && process.env.BENCH_CONTENT === 'false')) continue;
    await runModuleBench(name, file);
  }
}

/** Runs one `bench/<name>.bench.ts` in its own process, its output shown as it comes; records its printed tables (or, without any, its output) if it wrote no result. */
async function runModuleBench(name: string, file: string): Promise<void> {
  const resultFile = join(resultsDir(), `${name}.json`);
  const recorder = new BenchRecorder(name, `bench/${file}`);
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, file)], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
    process.stdout.write(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`bench/${file} exited with ${code}`);
  const wroteOwn = existsSync(resultFile) && statSync(resultFile).mtimeMs >= started;
  if (!wroteOwn) {
    const tables = tablesFromMarkdown(printed);
    for (const table of tables) recorder.table(table.title, table.columns, table.rows);
    if (!tables.length) recorder.output(printed.trim());
    await recorder.save();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
