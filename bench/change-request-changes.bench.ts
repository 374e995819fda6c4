/* Semantic changes of a change request (`getChangeRequestChanges`): a 20-page change (10 edits, 5
 * inserts, 3 moves, 2 deletions) in a 10-page vs a 10,000-page space, read in turn (interleaved). The ratio is the figure: the
 * diff reads the rows that differ, so its cost should follow the change, not the space (goal ≤ 1.5,
 * as the merge). Standalone: `node -r @swc-node/register bench/change-request-changes.bench.ts`.
 * Uses DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own fresh database. */
import { median, ms, startChangeRequestBench } from './change-request-fixture';

const ROUNDS = Number(process.env.BENCH_CHANGES_ROUNDS ?? 5);
/** Reads of one change request per round (the median of these is the round's figure). */
const READS = 20;
const LARGE = Number(process.env.BENCH_CHANGES_LARGE ?? 10_000);

async function main(): Promise<void> {
  const bench = await startChangeRequestBench('changes');
  const { call } = bench;
  try {
    /** A space of `size` pages and its rounds: author a 20-page change request, read its changes, merge it. */
    const scenario = async (size: number) => {
      const space = await bench.newSpace(`Changes ${size}`);
      await bench.seed(space.id, size);
      // Pages merged earlier that a round may delete (created pages' ids, from `compat=false` answers).
      const deletable: string[] = [];
      const author = async (list: object[]) => {
        const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, {});
        const url = `/v1/spaces/${space.id}/change-requests/${cr.json.id as string}`;
        const res = await call('POST', `${url}/content?compat=false`, { changes: list });
        for (const change of res.json.changes as { object: string; page: { id: string } }[])
          if (change.object === 'created_page') deletable.push(change.page.id);
        return url;
      };
      const inserts = (round: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({ operation: 'insert_page', title: `Round ${round} new ${i}`, document: { markdown: `New ${i}.` } }));
      await call('POST', `${await author(inserts(-1, 2))}/merge`);
      return {
        size,
        changes: 0,
        /** The round's change request: 20 changed pages (10 edits, 5 inserts, 3 moves with their subtrees, 2 deletions). */
        prepare(round: number): Promise<string> {
          const moves =
            size > 10
              ? Array.from({ length: 3 }, (_, i) => ({ operation: 'update_page', page: `p${size - 1 - i - round * 3}`, into: null }))
              : Array.from({ length: 3 }, (_, i) => ({ operation: 'update_page', page: `p${i}`, into: round % 2 === 0 ? 'p9' : null }));
          return author([
            ...Array.from({ length: 10 }, (_, i) => ({ operation: 'update_page', page: `p${i}`, title: `Round ${round} page ${i}` })),
            ...moves,
            ...deletable.splice(0, 2).map((page) => ({ operation: 'delete_page', page })),
            ...inserts(round, 5),
          ]);
        },
        async read(url: string): Promise<number> {
          const res = await call('GET', `${url}/changes?limit=100`);
          this.changes = (res.json.changes as unknown[]).length;
          return res.ms;
        },
      };
    };
    const small = await scenario(10);
    const large = await scenario(LARGE);
    // Warm-up: the first requests of a process pay for connections and compiled code.
    for (const side of [small, large]) {
      const url = await side.prepare(ROUNDS); // a round of its own: moves pages no measured round moves
      for (let read = 0; read < READS; read++) await side.read(url);
      await call('POST', `${url}/merge`);
    }
    // Interleaved: each round reads both spaces' change requests in turn, so a change of the machine's
    // load falls on both sides; the figure is the median of the per-round ratios.
    const smallRounds: number[] = [];
    const largeRounds: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const urls = [await small.prepare(round), await large.prepare(round)];
      const times: [number[], number[]] = [[], []];
      for (let read = 0; read < READS; read++) {
        times[0].push(await small.read(urls[0]));
        times[1].push(await large.read(urls[1]));
      }
      smallRounds.push(median(times[0]));
      largeRounds.push(median(times[1]));
      ratios.push(median(times[1]) / median(times[0]));
      // Each round on main as the last one left it: merged, so the next change request starts from its revision.
      for (const url of urls) await call('POST', `${url}/merge`);
    }
    process.stdout.write(
      [
        '',
        `Change-request semantic changes (loopback, one process; ${ROUNDS} rounds, each reading both spaces in turn ${READS} times; medians)`,
        '',
        '| measurement | result |',
        '|---|---|',
        `| getChangeRequestChanges, 20-page change, 10-page space (${small.changes} changes) | **${ms(median(smallRounds))} ms** |`,
        `| getChangeRequestChanges, 20-page change, ${LARGE}-page space (${large.changes} changes) | **${ms(median(largeRounds))} ms** |`,
        `| ratio large / small, median of the rounds' ratios (goal ≤ 1.5) | **${median(ratios).toFixed(2)}** (rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}) |`,
        '',
      ].join('\n'),
    );
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
