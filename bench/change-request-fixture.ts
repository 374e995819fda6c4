/* What the change-request benchmarks share: the app of `startBenchApp` (in-process.ts: a fresh database, loopback,
 * a user with a token and an organization), spaces seeded with N pages as one revision, and a timed HTTP call.
 * Used by `change-requests.bench.ts` and `change-request-changes.bench.ts`. */
import type { INestApplication } from '@nestjs/common';
import { documentPage, DraftPage, RevisionWriter } from '../src/modules/content/revision-writer';
import type { Space } from '../src/modules/space-model/space.entity';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { startBenchApp } from './in-process';

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const ms = (value: number) => Math.round(value * 10) / 10;

/** A page's body: 30 lines, and with `links` a link to the next page (so link rows are written and classified). */
export const pageBody = (n: number, links = false) =>
  Array.from({ length: 30 }, (_, i) => `Line ${i} of page ${n}: some words about install, configure and deploy.`).join('\n') +
  (links ? `\n\n[next](/pages/p${n + 1})\n` : '');

export interface CallResult {
  ms: number;
  json: Record<string, unknown>;
  text: string;
}

export interface ChangeRequestBench {
  app: INestApplication;
  base: string;
  headers: Record<string, string>;
  /** A timed request as the bench user; a status ≥ 300 throws. */
  call(method: string, path: string, payload?: object): Promise<CallResult>;
  newSpace(title: string): Promise<Space>;
  /** Writes `count` pages (`p0`…: 100 at the top, the rest under them) as the space's one new revision. */
  seed(spaceId: string, count: number, options?: { links?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function startChangeRequestBench(name: string): Promise<ChangeRequestBench> {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  const bench = await startBenchApp({}, `bench-${name}@example.com`);
  const { app, base, headers, user, membership } = bench;
  const writes = app.get(SpaceUnitOfWork);
  const writer = app.get(RevisionWriter);
  return {
    app,
    base,
    headers,
    async call(method, path, payload) {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, { method, headers, body: payload ? JSON.stringify(payload) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return { ms: performance.now() - started, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
    },
    newSpace: async (title) => (await app.get(SpacesService).create(user, membership, { title })).space,
    async seed(spaceId, count, options = {}) {
      const pages: DraftPage[] = Array.from({ length: count }, (_, i) =>
        // Positions numbered among siblings, as the change-request tree editor numbers them (else the first merge renumbers every page).
        documentPage({
          pageId: `p${i}`,
          parentId: i < 100 ? null : `p${i % 100}`,
          position: i < 100 ? i : Math.floor(i / 100) - 1,
          title: `Page ${i}`,
          slug: `page-${i}`,
          markdown: pageBody(i, options.links),
        }),
      );
      await writes.run(spaceId, user, 'edit', ({ commitRevision }) =>
        commitRevision((parent, em) => writer.write({ spaceId, parents: [parent], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );
    },
    close: () => bench.close(),
  };
}
