import autocannon from 'autocannon';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export { freePort } from '../src/common/free-port';

export const ROOT = join(__dirname, '..');

/** What `cli bootstrap` prints: the organization it made and its admin's API token. */
export interface Bootstrapped {
  token: string;
  organizationId: string;
}

/** An organization and its admin's token on the database `env` names, made by the built CLI (`dist/`). */
export function bootstrapWithCli(env: Record<string, string>, email = 'bench@example.com'): Bootstrapped {
  const printed = execFileSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli.js'), 'bootstrap', '--org', 'Bench Org', '--email', email], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(printed.toString()) as Bootstrapped;
}

export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server process on `port` and resolves once it answers HTTP at all. */
export async function startProcess(args: string[], env: Record<string, string | undefined>, port: number): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (
    !(await fetch(url).then(
      () => true,
      () => false,
    ))
  ) {
    if (exited !== undefined) throw new Error(`${args.join(' ')} exited with ${exited}`);
    if (Date.now() - started > 120_000) throw new Error(`${args.join(' ')} did not start in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url,
    process: child,
    stop: () =>
      new Promise((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

export interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Loopback load with autocannon: bounded in time, stops by itself. `request`: another method and a body (JSON). */
export async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 10,
  request?: { method: 'PATCH' | 'POST' | 'PUT'; body: unknown },
): Promise<Figures> {
  const result = await autocannon({
    url,
    headers: request ? { ...headers, 'content-type': 'application/json' } : headers,
    duration: seconds,
    connections,
    pipelining: 1,
    ...(request ? { method: request.method, body: JSON.stringify(request.body) } : {}),
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * A 90 % interval of the median of `values` (per-round ratios), by bootstrap: the median of 2,000 resamples
 * of the rounds, drawn with a fixed seed so a run prints the same interval for the same rounds. How far one
 * run's median may be from the machine's own on a noisy machine, where rounds of one run spread widely.
 */
export function medianInterval(values: number[], resamples = 2000): [number, number] {
  let seed = 0x2545f491;
  const random = () => {
    // xorshift32: reproducible, good enough to pick rounds.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const medians = Array.from({ length: resamples }, () => median(values.map(() => values[Math.floor(random() * values.length)]))).sort((a, b) => a - b);
  return [medians[Math.floor(resamples * 0.05)], medians[Math.ceil(resamples * 0.95) - 1]];
}

/**
 * One table row from alternating rounds (Quire, bare, Quire, bare…): the median of each figure, and
 * the median of the per-round ratios, which a shared machine's drift between rounds does not skew.
 */
export function row(name: string, quire: Figures[], bare: Figures[]): string {
  const ratios = quire.map((q, round) => q.requestsPerSecond / bare[round].requestsPerSecond);
  const m = (figures: Figures[], key: 'requestsPerSecond' | 'p50' | 'p99') => Math.round(median(figures.map((f) => f[key])));
  return `| ${name} | ${m(quire, 'requestsPerSecond')} | ${m(quire, 'p50')} | ${m(quire, 'p99')} | ${m(bare, 'requestsPerSecond')} | ${m(bare, 'p50')} | ${m(bare, 'p99')} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) |`;
}

/* ---- Results: every bench writes `bench/results/<name>.json` through `BenchRecorder`; bench/report.ts renders them. ---- */

/** A table as printed: column names and rows of cells (numbers stay numbers). */
export interface ResultTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

/**
 * A chart's data: one point per (series, x). `bars` groups bars by x (a route, a query) and colours
 * them by series; `size` draws one line per series against a space size on a logarithmic axis.
 */
export interface ResultChart {
  title: string;
  kind: 'bars' | 'size';
  x: string;
  y: string;
  points: { series: string; x: string | number; y: number }[];
}

/** Where and on what a bench ran: the report's machine section and each result's header. */
export interface ResultEnvironment {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  postgres: string;
  commit: string;
}

export interface BenchResult {
  name: string;
  title: string;
  /** The command that produced it, e.g. `node -r @swc-node/register bench/content.bench.ts`. */
  command: string;
  startedAt: string;
  finishedAt: string;
  /** `os.loadavg()` (1, 5 and 15 minutes) when the bench started and when it finished. */
  loadBefore: number[];
  loadAfter: number[];
  /** The sizes and knobs the figures were measured with (the bench's env variables, resolved). */
  parameters: Record<string, string | number>;
  environment: ResultEnvironment;
  tables: ResultTable[];
  charts: ResultChart[];
  /** What a bench printed, when it printed no table to record (shown as is). */
  output?: string;
}

/** `bench/results`, or BENCH_RESULTS_DIR (the report's unit test renders from a scratch directory). */
export const resultsDir = (): string => process.env.BENCH_RESULTS_DIR ?? join(ROOT, 'bench', 'results');

const round2 = (values: number[]) => values.map((value) => Math.round(value * 100) / 100);

async function postgresVersion(): Promise<string> {
  const url = process.env.DATABASE_URL;
  if (!url) return 'embedded';
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  } catch {
    return 'unknown';
  } finally {
    await client.end().catch(() => undefined);
  }
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    // Changes to what is measured (not the docs, not earlier results).
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench', 'migrations', 'package.json', ':!bench/results'],
      {
        cwd: ROOT,
      },
    )
      .toString()
      .trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

/**
 * Collects one bench's tables and charts while it runs; `save()` adds the finishing load and the
 * environment and writes `<resultsDir>/<name>.json`. Made at the bench's start, so the load before is the
 * load the bench met.
 */
export class BenchRecorder {
  private readonly startedAt = new Date();
  private readonly loadBefore = round2(loadavg());
  /** The code measured: the commit when the bench started. */
  private readonly commit = commit();
  private readonly tables: ResultTable[] = [];
  private readonly charts: ResultChart[] = [];
  private printed?: string;

  constructor(
    private readonly name: string,
    private readonly title: string,
    private readonly parameters: Record<string, string | number> = {},
    private readonly command = `node -r @swc-node/register bench/${name}.bench.ts`,
  ) {}

  table(title: string, columns: string[], rows: (string | number)[][]): this {
    this.tables.push({ title, columns, rows });
    return this;
  }

  chart(chart: ResultChart): this {
    this.charts.push(chart);
    return this;
  }

  output(text: string): this {
    this.printed = text;
    return this;
  }

  async save(): Promise<string> {
    const result: BenchResult = {
      name: this.name,
      title: this.title,
      command: this.command,
      startedAt: this.startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      loadBefore: this.loadBefore,
      loadAfter: round2(loadavg()),
      parameters: this.parameters,
      environment: {
        cpu: cpus()[0]?.model ?? 'unknown',
        cores: cpus().length,
        memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
        node: process.version,
        postgres: await postgresVersion(),
        commit: this.commit,
      },
      tables: this.tables,
      charts: this.charts,
      ...(this.printed === undefined ? {} : { output: this.printed }),
    };
    mkdirSync(resultsDir(), { recursive: true });
    const file = join(resultsDir(), `${this.name}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    return file;
  }
}

/**
 * The markdown tables a bench printed (`| a | b |` then `|---|---|`), each titled by the last line of
 * prose above it: how bench/run.ts records a bench that does not write its own result. Cells that are
 * numbers become numbers; `**` emphasis is dropped.
 */
export function tablesFromMarkdown(text: string): ResultTable[] {
  const lines = text.split('\n');
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim().replaceAll('**', ''));
  const tables: ResultTable[] = [];
  let title = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line.startsWith('|') && /^\|\s*:?-{3,}/.test(lines[i + 1]?.trim() ?? '')) {
      const rows: (string | number)[][] = [];
      let j = i + 2;
      for (; j < lines.length && lines[j].trim().startsWith('|'); j++)
        rows.push(cells(lines[j]).map((cell) => (/^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell)));
      tables.push({ title: title || 'Results', columns: cells(line), rows });
      i = j - 1;
    } else if (line && !line.startsWith('|') && !line.startsWith('{')) {
      // Not a log line the app under measure printed (JSON): the bench's own heading.
      title = line.replace(/:$/, '');
    }
  }
  return tables;
}
