/* GET /content alone, for work on the streamed read: a 1k- and a BENCH_LARGE_PAGES-page space
 * (default 10000), then rounds of (streamed read, the SELECT of the same rows, the route's own
 * query) and one read with the live heap sampled; PROFILE=1 also CPU-profiles STREAM_PROFILE_READS
 * reads of the large space (node's inspector, only those reads) and prints the top frames.
 * Standalone: `node --expose-gc -r @swc-node/register bench/content-stream.ts`. */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RevisionWriter } from '../src/modules/content/revision-writer';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { generatePages, liveHeapRead, median, selectRows, streamedRead, treeQueryRows } from './content-stream-measures';
import { startBenchApp } from './in-process';
import { summarize } from './profile';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 10_000);
const ROUNDS = Number(process.env.STREAM_ROUNDS ?? 5);

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app, base, user, headers, membership, databaseUrl } = bench;
  try {
    const newSpace = async (title: string) => (await app.get(SpacesService).create(user, membership, { title })).space;
    const writer = app.get(RevisionWriter);
    const writes = app.get(SpaceUnitOfWork);
    const spaces: [string, number][] = [];
    for (const count of [1000, LARGE]) {
      const space = await newSpace(`Generated ${count}`);
      await generatePages(writes, writer, user, space.id, count);
      spaces.push([space.id, count]);
    }
    if (process.env.STREAM_HOLD) {
      process.stdout.write(`${databaseUrl} ${spaces.map(([id, count]) => `${count}:${id}`).join(' ')}\n`);
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.STREAM_HOLD) * 1000));
    }
    for (const [spaceId, count] of spaces) {
      const url = `${base}/v1/spaces/${spaceId}/content`;
      await streamedRead(url, headers); // warm-up
      const reads: number[] = [];
      const selects: number[] = [];
      const walks: number[] = [];
      let bytes = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const read = await streamedRead(url, headers);
        bytes = read.bytes;
        reads.push(read.ms);
        selects.push(await selectRows(databaseUrl, spaceId));
        walks.push(await treeQueryRows(databaseUrl, spaceId));
      }
      const heap = await liveHeapRead(url, headers);
      const ms = median(reads);
      process.stdout.write(
        `${count} pages, ${(bytes / 1024 / 1024).toFixed(1)} MB: GET p50 ${ms.toFixed(0)} ms (${reads.map((r) => r.toFixed(0)).join(', ')}); ` +
          `SELECT ${median(selects).toFixed(0)} ms → ${(ms / median(selects)).toFixed(2)}×; ordered walk ${median(walks).toFixed(0)} ms → ${(ms / median(walks)).toFixed(2)}×; ` +
          `live heap peak above idle ${heap.liveMb} MB (samples ${heap.samples}); heapUsed peak (garbage included) ${heap.usedMb} MB\n`,
      );
    }
    if (process.env.PROFILE) {
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      const [spaceId] = spaces[spaces.length - 1];
      for (let i = 0; i < Number(process.env.STREAM_PROFILE_READS ?? 5); i++) await streamedRead(`${base}/v1/spaces/${spaceId}/content`, headers);
      const { profile } = await session.post('Profiler.stop');
      const file = join(tmpdir(), `content-stream-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      process.stdout.write(`\n${file}\n${summarize(file, 30)}`);
    }
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
