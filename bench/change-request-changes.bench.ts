/* Semantic changes of a change request (`getChangeRequestChanges`): a 20-page change (10 edits, 5
 * inserts, 3 moves, 2 deletions) in a 10-page vs a 10,000-page space. The ratio is the figure: the
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
    const changesCost = async (size: number): Promise<{ ms: number; changes: number }> => {
      const space = await bench.newSpace(`Changes ${size}`);
      await bench.seed(space.id, size);
      const rounds: number[] = [];
      let changes = 0;
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
      for (let round = 0; round < ROUNDS; round++) {
        // 20 changed pages: 10 edits, 5 inserts, 3 moves (their subtrees with them), 2 deletions.
        const moves =
          size > 10
            ? Array.from({ length: 3 }, (_, i) => ({ operation: 'update_page', page: `p${size - 1 - i - round * 3}`, into: null }))
            : Array.from({ length: 3 }, (_, i) => ({ operation: 'update_page', page: `p${i}`, into: round % 2 === 0 ? 'p9' : null }));
        const list = [
          ...Array.from({ length: 10 }, (_, i) => ({ operation: 'update_page', page: `p${i}`, title: `Round ${round} page ${i}` })),
          ...moves,
          ...deletable.splice(0, 2).map((page) => ({ operation: 'delete_page', page })),
          ...inserts(round, 5),
        ];
        const url = await author(list);
        const times: number[] = [];
        for (let read = 0; read < READS; read++) {
          const res = await call('GET', `${url}/changes?limit=100`);
          times.push(res.ms);
          changes = (res.json.changes as unknown[]).length;
        }
        rounds.push(median(times));
        // Each round on main as the last one left it: merged, so the next change request starts from its revision.
        await call('POST', `${url}/merge`);
      }
      return { ms: median(rounds), changes };
    };
    // Warm-up: the first requests of a process pay for connections and compiled code.
    await changesCost(10);
    const small = await changesCost(10);
    const large = await changesCost(LARGE);
    process.stdout.write(
      [
        '',
        'Change-request semantic changes (loopback, one process, sequential; median over rounds of the median of 20 reads)',
        '',
        '| measurement | result |',
        '|---|---|',
        `| getChangeRequestChanges, 20-page change, 10-page space (${small.changes} changes) | **${ms(small.ms)} ms** |`,
        `| getChangeRequestChanges, 20-page change, ${LARGE}-page space (${large.changes} changes) | **${ms(large.ms)} ms** |`,
        `| ratio large / small (goal ≤ 1.5) | **${(large.ms / small.ms).toFixed(2)}** |`,
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
