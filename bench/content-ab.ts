/* GET /content, this checkout's build against another one (AB_BASE: the other checkout's
 * dist/src/main.js, e.g. a build of main), both serving one database, requests interleaved
 * (A, B, SELECT, ordered walk, A, B, …) so that a loaded machine weighs on both alike. Per request:
 * wall time, and the server process's CPU time (/proc, Linux). A 1k- and a BENCH_LARGE_PAGES-page
 * space (default 10000); AB_ROUNDS rounds (default 9). Standalone, after `npm run -s build` in both:
 *   AB_BASE=/path/to/main/dist/src/main.js node -r @swc-node/register bench/content-ab.ts */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { generatePages, median, selectRows, streamedRead, treeQueryRows } from './content-stream-measures';
import { freePort, ROOT, Server, startProcess } from './harness';
import { startBenchApp } from './in-process';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 10_000);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 9);
const BASE = process.env.AB_BASE;

/** User + system CPU time of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measured(server: Server, url: string, headers: Record<string, string>): Promise<{ ms: number; cpu: number; bytes: number }> {
  const before = cpuMs(server.process.pid!);
  const read = await streamedRead(url, headers);
  return { ms: read.ms, cpu: cpuMs(server.process.pid!) - before, bytes: read.bytes };
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('AB_BASE: the dist/src/main.js of the build to compare with');
  const bench = await startBenchApp();
  const { app, user, headers, membership, databaseUrl } = bench;
  const servers: [string, Server][] = [];
  try {
    const newSpace = async (title: string) => (await app.get(SpacesService).create(user, membership, { title })).space;
    const spaces: [string, number][] = [];
    for (const count of [1000, LARGE]) {
      const space = await newSpace(`Generated ${count}`);
      await generatePages(app.get(SpaceUnitOfWork), app.get(RevisionWriter), user, space.id, count);
      spaces.push([space.id, count]);
    }
    const env = {
      DATABASE_URL: databaseUrl,
      MIGRATIONS_RUN: 'false',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_ADDRESS: '0',
      RATE_LIMIT_PER_TOKEN: '0',
    };
    servers.push(['this', await startProcess([join(ROOT, 'dist', 'src', 'main.js')], env, await freePort())]);
    servers.push(['base', await startProcess([BASE], env, await freePort())]);
    for (const [spaceId, count] of spaces) {
      const figures = new Map<string, { ms: number[]; cpu: number[] }>(servers.map(([name]) => [name, { ms: [], cpu: [] }]));
      const selects: number[] = [];
      const walks: number[] = [];
      let bytes = 0;
      for (const [, server] of servers) await streamedRead(`${server.url}/v1/spaces/${spaceId}/content`, headers); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, server] of round % 2 ? [...servers].reverse() : servers) {
          const read = await measured(server, `${server.url}/v1/spaces/${spaceId}/content`, headers);
          figures.get(name)!.ms.push(read.ms);
          figures.get(name)!.cpu.push(read.cpu);
          bytes = read.bytes;
        }
        selects.push(await selectRows(databaseUrl, spaceId));
        walks.push(await treeQueryRows(databaseUrl, spaceId));
      }
      const select = median(selects);
      process.stdout.write(
        `\n${count} pages (${(bytes / 1024 / 1024).toFixed(1)} MB): SELECT p50 ${select.toFixed(0)} ms, ordered walk p50 ${median(walks).toFixed(0)} ms\n`,
      );
      for (const [name, { ms, cpu }] of figures) {
        process.stdout.write(
          `  ${name}: p50 ${median(ms).toFixed(0)} ms (${(median(ms) / select).toFixed(2)}× the SELECT), server CPU p50 ${median(cpu)} ms; ` +
            `times ${ms.map((m) => m.toFixed(0)).join(' ')}\n`,
        );
      }
    }
  } finally {
    for (const [, server] of servers) await server.stop();
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
