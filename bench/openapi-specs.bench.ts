/* OpenAPI specs benchmarks: parse and store a 5 MB specification (from a URL and as text), list the
 * versions of a spec with 1,000 versions (page 1 vs the last page), and a computed page generated
 * from the 5 MB spec (first read, then cached).
 * Standalone: `npm run -s build && node -r @swc-node/register bench/openapi-specs.bench.ts`. Uses
 * DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own fresh database. */
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { newId } from '../src/common/ids';
import { createLogger } from '../src/common/logging/logger';
import { loadConfig } from '../src/config/app-config';
import { documentPage, RevisionWriter } from '../src/modules/content/revision-writer';
import { OpenApiSpecsRepository } from '../src/modules/openapi-specs/openapi-specs.repository';
import { contentHash } from '../src/modules/openapi-specs/source/spec-documents';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { SpaceUnitOfWork } from '../src/modules/space-writes/space-unit-of-work';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { TokensService } from '../src/modules/tokens/tokens.service';
import { UsersService } from '../src/modules/users/users.service';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../test/support/database';
import { largeSpec, largeSpecWithProblems, petstore } from '../test/support/openapi-fixtures';
import { serveWebsite } from '../test/support/website-fixture';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_OPENAPI_ROUNDS ?? 3);
const VERSIONS = Number(process.env.BENCH_OPENAPI_VERSIONS ?? 1000);
const LIST_REQUESTS = Number(process.env.BENCH_OPENAPI_LIST_REQUESTS ?? 200);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const ms = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    OUTBOUND_ALLOW_PRIVATE: 'true',
    // No BODY_LIMIT: the spec source routes take 2 × OPENAPI_MAX_BYTES, so a 5 MB text fits.
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const text = largeSpec(5 * 1024 * 1024);
  // A distinct document per round and per source, so each one is parsed, validated and stored anew.
  const variant = (name: string) => text.replace('"A sample API"', `"A sample API, ${name}"`);
  const site = await serveWebsite(
    Object.fromEntries(Array.from({ length: ROUNDS }, (_, round) => [`/big-${round}.json`, { type: 'application/json', body: variant(`url ${round}`) }])),
  );
  const lines: string[] = [];
  try {
    const { user } = await app.get(UsersService).findOrCreate('bench@example.com', 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { organization, membership } = await app.get(OrganizationsService).create(user, { title: 'Bench Org' });
    const api = `${base}/v1/orgs/${organization.id}/openapi`;
    const send = async (method: string, url: string, body: unknown, expected: number) => {
      const started = performance.now();
      const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
      const answer = await res.text();
      if (res.status !== expected) throw new Error(`${method} ${url} answered ${res.status}: ${answer.slice(0, 300)}`);
      return performance.now() - started;
    };

    // 1. Parse, validate and store a 5 MB specification: from a URL, as text, and again unchanged.
    const size = `${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MB`;
    const fromUrl: number[] = [];
    const fromText: number[] = [];
    const unchanged: number[] = [];
    const withProblems: number[] = [];
    let problemCount = 0;
    const broken = largeSpecWithProblems(5 * 1024 * 1024);
    let healthDuringCreate = 0;
    for (let round = 0; round < ROUNDS; round++) {
      fromUrl.push(await send('POST', api, { slug: `url-${round}`, source: { url: `${site.origin}/big-${round}.json` } }, 201));
      const own = variant(`text ${round}`);
      // Meanwhile, /health/live is asked again and again: the slowest answer shows whether the
      // parsing and validation held up the server's event loop.
      let creating = true;
      const probe = (async () => {
        while (creating) {
          const started = performance.now();
          await (await fetch(`${base}/health/live`)).text();
          healthDuringCreate = Math.max(healthDuringCreate, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      fromText.push(await send('POST', api, { slug: `text-${round}`, source: { text: own } }, 201));
      creating = false;
      await probe;
      unchanged.push(await send('PUT', `${api}/text-${round}`, { source: { text: own } }, 200));
      // Kept with its problems (before the schema check moved ahead of the parser: 69 s in the worker, past its 60 s limit).
      const started = performance.now();
      const res = await fetch(api, {
        method: 'POST',
        headers,
        body: JSON.stringify({ slug: `broken-${round}`, source: { text: broken.replace('"A sample API"', `"A sample API, broken ${round}"`) } }),
      });
      const body = (await res.json()) as { lastProcessedErrorCount?: number };
      if (res.status !== 201) throw new Error(`POST ${api} (broken) answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      withProblems.push(performance.now() - started);
      problemCount = body.lastProcessedErrorCount ?? 0;
    }
    lines.push(`| create from a URL, ${size} JSON (fetch, parse, validate, store) | median **${ms(median(fromUrl))} ms** (${fromUrl.map(ms).join(', ')}) |`);
    lines.push(`| create from text, ${size} JSON | median **${ms(median(fromText))} ms** (${fromText.map(ms).join(', ')}) |`);
    lines.push(`| PUT the same ${size} text again (stored content: not validated again, no new version) | median **${ms(median(unchanged))} ms** |`);
    lines.push(`| slowest GET /health/live while a ${size} text was created | **${ms(healthDuringCreate)} ms** |`);
    lines.push(
      `| create from text, ${size} JSON with ${problemCount} problems spread through it (kept, 50 listed) | median **${ms(median(withProblems))} ms** (${withProblems.map(ms).join(', ')}) |`,
    );

    // 2. A spec with 1,000 versions: page 1 vs the last page (keyset, newest first).
    await send('PUT', `${api}/many`, { source: { text: JSON.stringify(petstore()) } }, 201);
    const repository = app.get(OpenApiSpecsRepository);
    const dataSource = app.get(DataSource);
    const spec = await repository.findSpec(organization.id, 'many');
    if (!spec) throw new Error('no spec');
    await dataSource.transaction(async (em) => {
      for (let i = 1; i < VERSIONS; i++) {
        const document = petstore() as { info: { version: string } };
        document.info.version = `1.0.${i}`;
        const raw = JSON.stringify(document);
        const hash = contentHash([{ key: 'openapi.json', text: raw }]);
        await repository.storeContent(
          {
            hash,
            format: 'json',
            rawText: raw,
            filesystem: JSON.stringify({ 'openapi.json': document }),
            size: raw.length,
            sourceUrl: null,
            known: false,
            errors: [],
            errorCount: 0,
          },
          em,
        );
        const version = await repository.insertVersion({ id: newId(), specId: spec.id, contentHash: hash, sourceUrl: null, processingState: 'complete' }, em);
        await repository.updateSpec(spec.id, { lastVersionId: version.id }, em);
      }
    });
    const list = `${api}/many/versions`;
    let cursor: string | undefined;
    let last: string | undefined;
    do {
      const res = (await (await fetch(`${list}?limit=50${cursor ? `&page=${cursor}` : ''}`, { headers })).json()) as { next?: { page: string } };
      last = cursor;
      cursor = res.next?.page;
    } while (cursor);
    const timeList = async (url: string) => {
      const times: number[] = [];
      for (let i = 0; i < LIST_REQUESTS; i++) {
        const started = performance.now();
        const res = await fetch(url, { headers });
        await res.text();
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
        times.push(performance.now() - started);
      }
      return times;
    };
    // Alternate, so neither side gets a warmer cache.
    const first: number[] = [];
    const lastPage: number[] = [];
    for (let round = 0; round < 4; round++) {
      first.push(...(await timeList(`${list}?limit=50`)));
      lastPage.push(...(await timeList(`${list}?limit=50&page=${last}`)));
    }
    const ratio = median(lastPage) / median(first);
    lines.push(
      `| list versions of a ${VERSIONS}-version spec, limit 50: page 1 | p50 **${ms(median(first))} ms**, p95 ${ms(percentile(first, 95))} ms |`,
      `| same, last page (page 20) | p50 **${ms(median(lastPage))} ms**, p95 ${ms(percentile(lastPage, 95))} ms; last/first = **${ratio.toFixed(2)}** |`,
    );

    // 3. A computed page generated from the 5 MB spec: first read, then from the cache.
    const { space } = await app.get(SpacesService).create(user, membership, { title: 'Reference' });
    const pageId = newId();
    await app.get(SpaceUnitOfWork).run(space.id, user, 'edit', ({ commitRevision }) =>
      commitRevision((parent, em) =>
        app.get(RevisionWriter).write(
          {
            spaceId: space.id,
            parents: [parent],
            type: 'edits',
            createdBy: null,
            pages: [
              documentPage({
                pageId,
                parentId: null,
                position: 0,
                title: 'API',
                slug: 'api',
                markdown: '',
                computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'url-0' } } }, props: {} },
              }),
            ],
            files: [],
          },
          em,
        ),
      ),
    );
    const page = `${base}/v1/spaces/${space.id}/content/page/${pageId}`;
    // The first read renders (and fills the cache); the following ones read the cache. Meanwhile
    // /health/live is asked again and again: the slowest answer shows whether the render stalls the server.
    const started = performance.now();
    let rendering = true;
    let healthDuringRender = 0;
    let probes = 0;
    const probing = (async () => {
      while (rendering) {
        const probeStarted = performance.now();
        await (await fetch(`${base}/health/live`)).text();
        healthDuringRender = Math.max(healthDuringRender, performance.now() - probeStarted);
        probes += 1;
      }
    })();
    const coldRes = await fetch(page, { headers });
    const body = (await coldRes.json()) as { markdown: string };
    const coldMs = performance.now() - started;
    rendering = false;
    await probing;
    if (coldRes.status !== 200 || !body.markdown.includes('GET /generated/0/{id}')) throw new Error(`the computed page answered ${coldRes.status}`);
    const warm = (await timeList(page)).slice(0, 50);
    lines.push(
      `| computed page from the ${size} spec (${(Buffer.byteLength(body.markdown) / 1024 / 1024).toFixed(1)} MB of markdown) | first read (renders) **${ms(coldMs)} ms**; cached p50 **${ms(median(warm))} ms** |`,
      `| slowest GET /health/live while that page rendered (${probes} probes) | **${ms(healthDuringRender)} ms** |`,
    );

    process.stdout.write(`\nOpenAPI specs benchmarks (loopback, one process, sequential)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`);
  } finally {
    await site.close();
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
