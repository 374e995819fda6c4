import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startBenchApp } from './in-process';
/* Writing one large revision (issue 18, row 4) on its own: `writer.write` inside `SpaceUnitOfWork.run` +
 * `commitRevision` (which activates the revision and rebuilds its search rows), as content.bench.ts does,
 * without the searches and reads around it. BENCH_LARGE_PAGES (default 100000) pages, BENCH_WRITES (default 1) times,
 * each into a new space with new bodies. Not one of `npm run bench`'s (content.bench.ts measures the same write).
 * BENCH_KEEP=1 leaves the database (its URL is printed) for EXPLAIN. Standalone: `node -r @swc-node/register bench/revision-write.ts`.
 * Prints the stages (the revision writer, the search rebuild, the rest: activation and commit) and this process's CPU time
 * (user + system: the JavaScript side) and that of its PostgreSQL backends (from /proc, when the server runs on this machine). */
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { SearchIndexWritesRepository } from '../src/modules/space-writes/search-index-writes.repository';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 100_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 1);

const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `term${i.toString(36)}`);
const COMMON = ['install', 'configure', 'server', 'account', 'deploy', 'token', 'search', 'guide'];
function body(n: number, salt: number): string {
  let seed = n * 2654435761;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const paragraph = () =>
    Array.from({ length: 60 }, () =>
      next() < 0.1 ? COMMON[Math.floor(next() * COMMON.length)] : VOCABULARY[Math.floor(next() ** 3 * VOCABULARY.length)],
    ).join(' ');
  return `Intro of page ${n} (${salt}). ${paragraph()}\n\n## Setup\n\n${paragraph()}\n\n## Usage\n\n${paragraph()} [next](/pages/p${n + 1})\n`;
}

/** Wraps `method` of `prototype` to add its wall time (ms) to `stages[name]`. */
function timed(stages: Record<string, number>, name: string, prototype: object, method: string): void {
  const target = prototype as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method];
  target[method] = async function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      stages[name] = (stages[name] ?? 0) + performance.now() - started;
    }
  };
}

/**
 * CPU seconds (user + system) of the PostgreSQL backends serving `database`, read from /proc when the
 * server runs on this machine: sampled every 500 ms, each backend's last sample counts (a backend that
 * exits between samples loses at most that much).
 */
function backendCpu(database: string): { stop(): number } {
  const seen = new Map<number, number>();
  const tick = Number(process.env.CLK_TCK ?? 100);
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (!command.startsWith('postgres:') || !command.includes(` ${database} `)) continue;
        const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
        seen.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / tick);
      } catch {
        // the process ended meanwhile
      }
    }
  };
  sample();
  const start = new Map(seen);
  const timer = setInterval(sample, 500);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, cpu] of seen) total += cpu - (start.get(pid) ?? 0);
      return total;
    },
  };
}

async function main(): Promise<void> {
  const stages: Record<string, number> = {};
  timed(stages, 'writer', RevisionWriter.prototype, 'write');
  timed(stages, 'search', SearchIndexWritesRepository.prototype, 'rebuild');
  const bench = await startBenchApp();
  const { app, user, membership } = bench;
  try {
    const writer = app.get(RevisionWriter);
    const writes = app.get(SpaceUnitOfWork);
    for (let w = 0; w < WRITES; w++) {
      const { space } = await app.get(SpacesService).create(user, membership, { title: `Generated ${w}` });
      const pages: DraftPage[] = Array.from({ length: LARGE }, (_, i) =>
        documentPage({
          pageId: `p${i}`,
          parentId: i < 100 ? null : `p${i % 100}`,
          position: i,
          title: `Page ${i} ${COMMON[i % COMMON.length]}`,
          slug: `page-${i}`,
          markdown: body(i, w),
        }),
      );
      for (const name of Object.keys(stages)) delete stages[name];
      const cpu = process.cpuUsage();
      const backends = backendCpu(new URL(bench.databaseUrl).pathname.slice(1));
      const started = performance.now();
      await writes.run(space.id, user, 'edit', ({ commitRevision }) =>
        commitRevision((parent, em) => writer.write({ spaceId: space.id, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );
      const total = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const backendSeconds = backends.stop();
      const s = (ms: number) => (ms / 1000).toFixed(1);
      const rest = total - (stages.writer ?? 0) - (stages.search ?? 0);
      process.stdout.write(
        `write + index a ${LARGE}-page revision: ${s(total)} s (writer ${s(stages.writer ?? 0)}, search ${s(stages.search ?? 0)}, ` +
          `rest ${s(rest)}; CPU: this process ${s((used.user + used.system) / 1000)} s, its PostgreSQL backends ${backendSeconds.toFixed(1)} s; ` +
          `load ${loadavg()[0].toFixed(1)})\n`,
      );
    }
  } finally {
    if (process.env.BENCH_KEEP) process.stdout.write(`kept ${bench.databaseUrl}\n`);
    else await bench.close();
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => process.env.BENCH_KEEP && process.exit());
