import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from '../../bench/harness';
import { tablesFromMarkdown } from '../../bench/harness';

const ROOT = join(__dirname, '..', '..');

/** A small fixed result, as `BenchRecorder.save()` writes it: one table, a bar chart and a size chart. */
const result: BenchResult = {
  name: 'main',
  title: 'Fixture comparison',
  command: 'npm run bench (bench/run.ts)',
  startedAt: '2026-01-02T03:04:05.000Z',
  finishedAt: '2026-01-02T03:05:05.000Z',
  loadBefore: [1.25, 0.5, 0.25],
  loadAfter: [2.5, 1, 0.5],
  parameters: { BENCH_SECONDS: 10 },
  environment: { cpu: 'Fixture CPU 3000', cores: 2, memoryGb: 7.8, node: 'v20.19.0', postgres: '16.4', commit: 'abc1234' },
  tables: [
    {
      title: 'Throughput',
      columns: ['route', 'server', 'req/s'],
      rows: [
        ['GET /v1/user', 'Quire', 4321],
        ['GET /v1/user', 'bare | pg', 9876],
      ],
    },
  ],
  charts: [
    {
      title: 'Throughput per route',
      kind: 'bars',
      x: 'route',
      y: 'requests per second',
      points: [
        { series: 'Quire', x: 'GET /v1/user', y: 4321 },
        { series: 'bare', x: 'GET /v1/user', y: 9876 },
      ],
    },
    {
      title: 'Merge cost against space size',
      kind: 'size',
      x: 'pages in the space',
      y: 'milliseconds',
      points: [
        { series: 'merge median', x: 10, y: 40 },
        { series: 'merge median', x: 10000, y: 52 },
      ],
    },
  ],
};

describe('bench report (bench/report.ts)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'quire-bench-report-'));
    writeFileSync(join(dir, 'main.json'), JSON.stringify(result));
    // A bench recorded from its printed output (no table): shown as is, after the main comparison.
    writeFileSync(
      join(dir, 'document.json'),
      JSON.stringify({ ...result, name: 'document', title: 'bench/document.bench.ts', tables: [], charts: [], output: 'parse 42.5 ms/MB' }),
    );
    writeFileSync(join(dir, 'stale-1.svg'), '<svg/>');
    // The real command (`npm run bench:report`), in its own process: vega loads as ES modules there.
    execFileSync(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'bench', 'report.ts')], {
      cwd: ROOT,
      env: { ...process.env, BENCH_RESULTS_DIR: dir },
      stdio: 'pipe',
    });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the tables, the machine, the load and a link per chart into report.md', () => {
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('| route | server | req/s |');
    expect(report).toContain('| GET /v1/user | Quire | 4321 |');
    expect(report).toContain('| GET /v1/user | bare \\| pg | 9876 |');
    expect(report).toContain('| abc1234 | 2026-01-02 03:04 | 60 s | 1.25 / 0.50 / 0.25 | 2.50 / 1.00 / 0.50 |');
    expect(report).toContain('Parameters: BENCH_SECONDS=10.');
    expect(report).toContain('![Throughput per route](main-1.svg)');
    expect(report).toContain('![Merge cost against space size](main-2.svg)');
    expect(report).toContain('| Fixture CPU 3000 | 2 | 7.8 GB | v20.19.0 | 16.4 | main, document |');
    expect(report.indexOf('## Fixture comparison')).toBeLessThan(report.indexOf('## bench/document.bench.ts'));
    expect(report).toContain('```text\nparse 42.5 ms/MB\n```');
  });

  it('draws each chart as an SVG with its title, axes and series, and removes stale ones', () => {
    expect(
      readdirSync(dir)
        .filter((file) => file.endsWith('.svg'))
        .sort(),
    ).toEqual(['main-1.svg', 'main-2.svg']);
    const bars = readFileSync(join(dir, 'main-1.svg'), 'utf8');
    expect(bars.startsWith('<svg')).toBe(true);
    for (const text of ['Throughput per route', 'requests per second', 'GET /v1/user', 'Quire', 'bare']) expect(bars).toContain(text);
    // Two bars, one per series, their heights in the ratio of the figures (4321 : 9876).
    const heights = [...bars.matchAll(/aria-roledescription="bar" d="M[\d.]+,[\d.]+h[\d.]+v([\d.]+)/g)].map((match) => Number(match[1]));
    expect(heights).toHaveLength(2);
    expect(heights[0] / heights[1]).toBeCloseTo(4321 / 9876, 3);
    const size = readFileSync(join(dir, 'main-2.svg'), 'utf8');
    for (const text of ['Merge cost against space size', 'pages in the space', 'merge median']) expect(size).toContain(text);
    expect(size).toContain('for a log scale with values from 10 to 10,000');
    expect(size).toContain('pages in the space: 10000; milliseconds: 52; series: merge median');
    expect(existsSync(join(dir, 'stale-1.svg'))).toBe(false);
  });
});

describe('tablesFromMarkdown', () => {
  it('reads the tables a bench prints, titled by the prose line above each, numbers as numbers', () => {
    const printed = 'noise\nContent benchmarks (loopback):\n\n| measurement | result |\n|---|---|\n| a | **12.5** |\n| b | p50 **3 ms** |\n\nafter\n';
    expect(tablesFromMarkdown(printed)).toEqual([
      {
        title: 'Content benchmarks (loopback)',
        columns: ['measurement', 'result'],
        rows: [
          ['a', 12.5],
          ['b', 'p50 3 ms'],
        ],
      },
    ]);
  });
});
