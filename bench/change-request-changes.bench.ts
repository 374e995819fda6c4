/* Semantic changes of a change request (`getChangeRequestChanges`): a 20-page change (10 edits, 5
 * inserts, 3 moves, 2 deletions) in a 10-page vs a 10,000-page space. The ratio is the figure: the
 * diff reads the rows that differ, so its cost should follow the change, not the space (goal ≤ 1.5,
 * as the merge). Standalone: `node -r @swc-node/register bench/change-request-changes.bench.ts`.
 * Uses DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own fresh database. */
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import type { User } from '../src/modules/users/user.entity';
import { createTestDatabase } from '../test/support/database';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_CHANGES_ROUNDS ?? 5);
/** Reads of one change request per round (the median of these is the round's figure). */
const READS = 20;
const LARGE = Number(process.env.BENCH_CHANGES_LARGE ?? 10_000);

const body = (n: number) => Array.from({ length: 30 }, (_, i) => `Line ${i} of page ${n}: some words about install, configure and deploy.`).join('\n');

async function seed(writes: SpaceUnitOfWork, writer: RevisionWriter, user: User, spaceId: string, count: number): Promise<void> {
  const pages: DraftPage[] = Array.from({ length: count }, (_, i) =>
    documentPage({
      pageId: `p${i}`,
      parentId: i < 100 ? null : `p${i % 100}`,
      position: i < 100 ? i : Math.floor(i / 100) - 1,
      title: `Page ${i}`,
      slug: `page-${i}`,
      markdown: body(i),
    }),
  );
  await writes.run(spaceId, user, 'edit', ({ commitRevision }) =>
    commitRevision((parent, em) => writer.write({ spaceId, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  try {
    const { user } = await app.get(UsersService).findOrCreate('bench-changes@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { membership } = await app.get(OrganizationsService).create(user, { title: 'Bench changes Org' });
    const call = async (method: string, path: string, payload?: object) => {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, { method, headers, body: payload ? JSON.stringify(payload) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return { ms: performance.now() - started, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const writes = app.get(SpaceUnitOfWork);
    const writer = app.get(RevisionWriter);

    const changesCost = async (size: number): Promise<{ ms: number; changes: number }> => {
      const space = (await app.get(SpacesService).create(user, membership, { title: `Changes ${size}` })).space;
      await seed(writes, writer, user, space.id, size);
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
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
