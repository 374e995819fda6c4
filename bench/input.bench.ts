/* Adversarial input benchmark (issue 25): per text-heavy route, a 1 MB body built to cost its parsers
 * most against a 1 MB ordinary body of the same route, with /health/live probed every 10 ms meanwhile
 * (latency counted from when the probe was due, so an event loop blocked in this process is seen).
 * Goal: adversarial ≤ 3× ordinary, and the slowest probe small. Median of BENCH_INPUT_ROUNDS (default 3).
 * Standalone: `npm run -s build && node -r @swc-node/register bench/input.bench.ts` (or BENCH_ONLY=input
 * npm run bench). Uses DATABASE_URL (default: the machine's PostgreSQL) for its own fresh database. */
import { AddressInfo } from 'node:net';
import { newId } from '../src/common/ids';
import { createApp } from '../src/app.factory';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { Site } from '../src/modules/sites/site.entity';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import { MAX_COMMENT_MARKDOWN } from '../src/modules/comments/dto/comment-body.dto';
import { createTestDatabase } from '../test/support/database';
import { largeSpec, petstore } from '../test/support/openapi-fixtures';
import { serveWebsite } from '../test/support/website-fixture';
import { DataSource } from 'typeorm';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_INPUT_ROUNDS ?? 3);
const MB = 1024 * 1024;
/** Text per body: 1 MB less room for the JSON around it and its escapes (a newline is two bytes in JSON). */
const TEXT = Math.floor(MB * 0.92);

const fill = (unit: string, bytes = TEXT) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const ORDINARY_MARKDOWN = fill(
  '## A section\n\nThe quick brown fox jumps over the lazy dog, with a [link](https://example.com/a) and `code` and *emphasis*.\n\n- one item\n- another item\n\n',
);
/** The kinds that cost markdown-it most per byte (measured: `![`, `[`, `*a`), and the old link pattern's `[a](`. */
const ADVERSARIAL_MARKDOWN: Record<string, string> = { '![': fill('!['), '[': fill('['), '*a': fill('*a'), '[a](': fill('[a](') };

/** Each round's body its own (same length): a body seen before is stored once and its tokens kept, which a benchmark must not measure. */
const unique = (text: string) => {
  const tag = `${newId()}\n\n`;
  return tag + text.slice(tag.length);
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
    OUTBOUND_ALLOW_PRIVATE: 'true',
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const site = await serveWebsite({
    '/ordinary/': {
      body: `<html><body><main><h1>Guide</h1>${fill('<p>The quick brown fox jumps over the <a href="/x">lazy</a> dog.</p>\n', TEXT)}</main></body></html>`,
    },
    '/nested/': { body: `<html><body><main>${fill('<div><b>', TEXT / 2)}x</main></body></html>` },
    '/brackets/': { body: `<html><body><main><p>${fill('![', TEXT)}</p></main></body></html>` },
  });
  const lines: string[] = [];
  try {
    const { user } = await app.get(UsersService).findOrCreate('bench-input@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { organization, membership } = await app.get(OrganizationsService).create(user, { title: 'Bench Input Org' });
    const newSpace = async (title: string) => (await app.get(SpacesService).create(user, membership, { title })).space;
    const call = async (method: string, path: string, payload?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers, body: payload === undefined ? undefined : JSON.stringify(payload) });
      const text = await res.text();
      return { status: res.status, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : {}, text };
    };

    /** Time of one request, with the slowest /health/live due while it ran. */
    const measure = async (send: () => Promise<{ status: number; text: string }>) => {
      let probing = true;
      let slowest = 0;
      const probe = (async () => {
        const origin = performance.now();
        for (let i = 0; probing; i++) {
          const due = origin + i * 10;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          // A kept-alive socket the server closed while idle is retried once on a new one.
          await fetch(`${base}/health/live`)
            .catch(() => fetch(`${base}/health/live`))
            .then((res) => res.text());
          slowest = Math.max(slowest, performance.now() - due);
          i = Math.max(i, Math.floor((performance.now() - origin) / 10));
        }
      })();
      const started = performance.now();
      const res = await send();
      const ms = performance.now() - started;
      probing = false;
      await probe;
      if (res.status >= 500) throw new Error(`answered ${res.status}: ${res.text.slice(0, 300)}`);
      return { ms, probe: slowest, status: res.status };
    };
    const rounds = async (send: (round: number) => Promise<{ status: number; text: string }>) => {
      const runs = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await measure(() => send(round)));
      return { ms: median(runs.map((r) => r.ms)), probe: Math.max(...runs.map((r) => r.probe)), status: runs[0].status };
    };
    const row = (
      route: string,
      ordinary: { ms: number; probe: number; status: number },
      kind: string,
      adversarial: { ms: number; probe: number; status: number },
    ) =>
      `| ${route} | ${Math.round(ordinary.ms)} ms (probe ${Math.round(ordinary.probe)}, ${ordinary.status}) | ${kind} | ${Math.round(adversarial.ms)} ms (probe ${Math.round(adversarial.probe)}, ${adversarial.status}) | **${(adversarial.ms / ordinary.ms).toFixed(1)}×** |`;

    // Change-request authoring: one insert_page of 1 MB.
    const space = await newSpace('Authoring');
    const insert = (markdown: string) => async (round: number) => {
      const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, {});
      return call('POST', `/v1/spaces/${space.id}/change-requests/${cr.json.id as string}/content`, {
        changes: [{ operation: 'insert_page', title: `Page ${round} ${newId()}`, document: { markdown: unique(markdown) } }],
      });
    };
    const authoring = await rounds(insert(ORDINARY_MARKDOWN));
    for (const [kind, markdown] of Object.entries(ADVERSARIAL_MARKDOWN))
      lines.push(row('change-request content (insert_page)', authoring, kind, await rounds(insert(markdown))));

    // Comment post: a body at the comments' own limit (MAX_COMMENT_MARKDOWN, 100,000 characters), read back as a document.
    const post = (markdown: string) => async () => {
      const posted = await call('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: unique(markdown) } });
      if (posted.status >= 300) return posted;
      return call('GET', `/v1/spaces/${space.id}/comments/${posted.json.id as string}?format=document`);
    };
    const comment = await rounds(post(ORDINARY_MARKDOWN.slice(0, MAX_COMMENT_MARKDOWN)));
    for (const kind of ['![', '*a']) {
      lines.push(
        row(
          'comment post + read as document (100,000 characters)',
          comment,
          kind,
          await rounds(post(ADVERSARIAL_MARKDOWN[kind].slice(0, MAX_COMMENT_MARKDOWN))),
        ),
      );
    }

    // Import of a 1 MB page of HTML.
    const importFrom = (path: string) => async () => {
      const into = await newSpace(`Import ${path}`);
      return call('POST', `/v1/spaces/${into.id}/content/import`, { source: 'website', url: `${site.origin}${path}` });
    };
    const ordinaryImport = await rounds(importFrom('/ordinary/'));
    for (const path of ['/nested/', '/brackets/']) lines.push(row('content import (website)', ordinaryImport, `HTML ${path}`, await rounds(importFrom(path))));

    // Spec upload: 1 MB of JSON (parsed and validated in the worker pool).
    const spec = (text: string) => async (round: number) =>
      call('POST', `/v1/orgs/${organization.id}/openapi`, {
        slug: `s-${round}-${newId().toLowerCase()}`,
        source: { text: text.replace('{', `{"x-round":"${newId()}",`) },
      });
    const ordinarySpec = await rounds(spec(largeSpec(TEXT)));
    const base0 = petstore() as { info: Record<string, unknown> };
    const withDescription = (text: string) => JSON.stringify({ ...base0, info: { ...base0.info, description: text } });
    lines.push(row('OpenAPI spec upload (text)', ordinarySpec, 'description of ![', await rounds(spec(withDescription(fill('![', TEXT - 8192))))));
    lines.push(row('OpenAPI spec upload (text)', ordinarySpec, 'YAML of `- ` runs', await rounds(spec(`openapi: 3.0.3\nx: ${fill('- ', TEXT - 8192)}\n`))));

    // Insights ingest: 1000 events (the batch limit), ordinary against each string at its longest run of specials.
    const siteRow = await app.get(DataSource).getRepository(Site).save({ id: newId(), organizationId: organization.id, title: 'Docs', createdBy: user.id });
    const events = (text: (i: number) => string) =>
      Array.from({ length: 1000 }, (_, i) => ({
        type: 'page_view',
        session: { visitorId: `v-${i}`, sessionId: `s-${i}`, cookies: {}, userAgent: text(i), language: 'en', referrer: null },
        location: {
          url: `https://docs.example.com/${text(i)}`,
          siteSection: null,
          siteSpace: null,
          siteShareKey: null,
          space: 'space-1',
          revision: null,
          page: 'page-1',
        },
      }));
    const ingest = (text: (i: number) => string) => async () =>
      call('POST', `/v1/orgs/${organization.id}/sites/${siteRow.id}/insights/events`, { events: events(text) });
    const ordinaryIngest = await rounds(ingest((i) => `Mozilla/5.0 guide/page-${i} ${fill('words and more words ', 280)}`));
    lines.push(row('insights ingest (1000 events)', ordinaryIngest, 'runs of `[(*_<`', await rounds(ingest(() => fill('[(*_<`|', 300)))));

    process.stdout.write(
      `\nAdversarial input, 1 MB bodies (median of ${ROUNDS}; probe: slowest /health/live due while the request ran, over the rounds)\n\n` +
        '| route | ordinary 1 MB | adversarial kind | adversarial 1 MB | adversarial / ordinary (goal ≤ 3×) |\n|---|---|---|---|---|\n' +
        `${lines.join('\n')}\n`,
    );
  } finally {
    await app.close();
    await site.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
