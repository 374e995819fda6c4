import { newId } from '../../src/common/ids';
import { ComputedSource } from '../../src/modules/content/revision-page.entity';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { largeSpec, petstore } from '../support/openapi-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { SpecWorkers } from '../../src/modules/openapi-specs/source/spec-workers';
import { specSourceBodyLimit } from '../../src/common/input-gate/input-gate';

/** Computed pages (section 2.19): a `builtin:openapi` page shows its spec's latest version when content is read. */
describe('computed OpenAPI pages', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const source = (slug: string, props: ComputedSource['props'] = {}): ComputedSource => ({
    type: 'builtin:openapi',
    dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } },
    props,
  });

  /** A new revision of the space holding a hand-written page and the given computed pages (through the space's unit of work). */
  async function writePages(org: OrgFixture, spaceId: string, computed: { title: string; slug: string; source: ComputedSource }[]) {
    const ids = computed.map(() => newId());
    await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((baseId, em) =>
        t.app.get(RevisionWriter).write(
          {
            spaceId,
            parents: [baseId],
            type: 'edits',
            createdBy: org.admin.user.id,
            pages: [
              documentPage({ pageId: newId(), parentId: null, position: 0, title: 'Intro', slug: 'intro', markdown: '# Hello' }),
              ...computed.map((page, index) =>
                documentPage({
                  pageId: ids[index],
                  parentId: null,
                  position: index + 1,
                  title: page.title,
                  slug: page.slug,
                  markdown: '',
                  computed: page.source,
                }),
              ),
            ],
            files: [],
          },
          em,
        ),
      ),
    );
    return ids;
  }

  const putSpec = (org: OrgFixture, slug: string, document: unknown) =>
    t.http
      .put(`/v1/orgs/${org.id}/openapi/${slug}`)
      .set(...org.admin.auth)
      .send({ source: { text: JSON.stringify(document) } });

  it("shows the spec's operations grouped by tag, leaves them out with computed=false, and follows a new version", async () => {
    const org = await createOrganization(t);
    await putSpec(org, 'petstore', petstore()).expect(201);
    const space = await createSpace(t, org);
    const [pageId] = await writePages(org, space.id, [{ title: 'API reference', slug: 'api', source: source('petstore') }]);
    const reader = await addMember(t, org, 'read');
    const page = (query = '') =>
      t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}${query}`)
        .set(...reader.auth)
        .expect(200);

    const res = await page();
    expectContract(res, 'getPageById');
    const markdown: string = res.body.markdown;
    expect(markdown).toContain('# Swagger Petstore');
    expect(markdown).toContain('## pets');
    expect(markdown).toContain('Everything about your pets');
    expect(markdown).toContain('### List all pets');
    expect(markdown).toContain('`GET /pets`');
    expect(markdown).toContain('- `limit` (query, integer (int32), optional): How many items to return');
    expect(markdown).toContain('- `petId` (path, string, required): The id of the pet');
    expect(markdown).toContain('- `application/json`: `Pet`, required');
    expect(markdown).toContain('- `200`: A paged array of pets (`application/json`: `Pets`)');
    expect(markdown).toContain('- `default`: unexpected error (`application/json`: `Error`)');
    // Untagged operations come last, under "default".
    expect(markdown.indexOf('## default')).toBeGreaterThan(markdown.indexOf('## pets'));
    expect(markdown).toContain('`GET /health`');
    expect(markdown).not.toContain('/stores');

    const without = await page('?computed=false');
    expectContract(without, 'getPageById');
    expect(without.body.markdown).toBe('');

    const asDocument = await page('?format=document');
    expectContract(asDocument, 'getPageById');
    expect(JSON.stringify(asDocument.body.document)).toContain('List all pets');

    // The whole revision and the page list render it too; the hand-written page is untouched.
    const revision = await t.http
      .get(`/v1/spaces/${space.id}/content`)
      .set(...reader.auth)
      .expect(200);
    expectContract(revision, 'getCurrentRevision');
    const computedPage = revision.body.pages.find((entry: { id: string }) => entry.id === pageId);
    expect(computedPage.markdown).toBe(markdown);
    expect(revision.body.pages.find((entry: { slug: string }) => entry.slug === 'intro').markdown).toBe('# Hello');
    const offline = await t.http
      .get(`/v1/spaces/${space.id}/content/pages?computed=false`)
      .set(...reader.auth)
      .expect(200);
    expect(offline.body.pages.find((entry: { id: string }) => entry.id === pageId).markdown).toBe('');
    const byPath = await t.http
      .get(`/v1/spaces/${space.id}/content/path/api`)
      .set(...reader.auth)
      .expect(200);
    expect(byPath.body.markdown).toBe(markdown);

    // A new version of the spec: the page follows it, without a new revision.
    await putSpec(org, 'petstore', petstore(true)).expect(200);
    const after = (await page()).body.markdown as string;
    expect(after).toContain('## stores');
    expect(after).toContain('`GET /stores`');
  });

  it('narrows the page with props: one tag, one operation, the models, the info', async () => {
    const org = await createOrganization(t);
    await putSpec(org, 'petstore', petstore(true)).expect(201);
    const space = await createSpace(t, org);
    const [tag, operation, models, info, unknownTag] = await writePages(org, space.id, [
      { title: 'Stores', slug: 'stores', source: source('petstore', { doc: 'tag', page: 'stores' }) },
      { title: 'Get pet', slug: 'get-pet', source: source('petstore', { doc: 'operation', page: '/pets/{petId}', method: 'get' }) },
      { title: 'Models', slug: 'models', source: source('petstore', { doc: 'models' }) },
      { title: 'Info', slug: 'info', source: source('petstore', { doc: 'info' }) },
      { title: 'Nothing', slug: 'nothing', source: source('petstore', { doc: 'operations', page: 'birds' }) },
    ]);
    const body = async (pageId: string) =>
      (
        await t.http
          .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.markdown as string;

    const stores = await body(tag);
    expect(stores).toContain('`GET /stores`');
    expect(stores).not.toContain('/pets');
    const single = await body(operation);
    expect(single).toMatch(/^## Info for a specific pet/);
    expect(single).toContain('`GET /pets/{petId}`');
    expect(single).not.toContain('List all pets');
    const schema = await body(models);
    expect(schema).toContain('## Pet');
    expect(schema).toContain('- `name` (string, required)');
    expect(schema).toContain('## Pets');
    expect(schema).toContain('Type: array of `Pet`');
    const about = await body(info);
    expect(about).toContain('# Swagger Petstore');
    expect(about).toContain('- `https://petstore.example.com/v1`');
    expect(await body(unknownTag)).toContain('no operations tagged `birds`');
  });

  it("gives an empty body when the spec is unknown, deleted, or another organization's", async () => {
    const org = await createOrganization(t);
    const other = await createOrganization(t);
    await putSpec(other, 'theirs', petstore()).expect(201);
    await putSpec(org, 'gone', petstore()).expect(201);
    const space = await createSpace(t, org);
    const ids = await writePages(org, space.id, [
      { title: 'Unknown', slug: 'unknown', source: source('nope') },
      { title: 'Theirs', slug: 'theirs', source: source('theirs') },
      { title: 'Gone', slug: 'gone', source: source('gone') },
    ]);
    await t.http
      .delete(`/v1/orgs/${org.id}/openapi/gone`)
      .set(...org.admin.auth)
      .expect(205);
    for (const pageId of ids) {
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getPageById');
      expect(res.body.markdown).toBe('');
    }
  });
});

/**
 * "One slow request must never stall the others": a computed page of a large spec is rendered in
 * the module's workers, so the server keeps answering while it renders. No time bound here (times
 * go in bench/openapi-specs.bench.ts): the test watches the render start and finish and checks that
 * `/health/live` answered in between, which cannot happen while the event loop renders.
 */
describe('computed OpenAPI pages render off the event loop', () => {
  let t: TestApp;
  // A 1.5 MB text source needs a body larger than the default 1 MB.
  beforeAll(async () => (t = await createTestApp({ BODY_LIMIT: '4mb' })));
  afterAll(() => t.close());

  const source = (slug: string): ComputedSource => ({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } }, props: {} });

  async function computedPage(org: OrgFixture, spaceId: string, slug: string): Promise<string> {
    const pageId = newId();
    await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((baseId, em) =>
        t.app.get(RevisionWriter).write(
          {
            spaceId,
            parents: [baseId],
            type: 'edits',
            createdBy: org.admin.user.id,
            pages: [documentPage({ pageId, parentId: null, position: 0, title: 'API', slug: 'api', markdown: '', computed: source(slug) })],
            files: [],
          },
          em,
        ),
      ),
    );
    return pageId;
  }

  /** Watches SpecWorkers.render: how many renders started, and whether one is under way now. */
  function watchRenders() {
    const workers = t.app.get(SpecWorkers);
    const original = workers.render.bind(workers);
    const seen = { started: 0, running: 0 };
    const spy = jest.spyOn(workers, 'render').mockImplementation(async (filesystem, props) => {
      seen.started += 1;
      seen.running += 1;
      try {
        return await original(filesystem, props);
      } finally {
        seen.running -= 1;
      }
    });
    return { seen, restore: () => spy.mockRestore() };
  }

  it('answers /health/live while a large computed page renders, and renders it once for concurrent readers', async () => {
    const org = await createOrganization(t);
    const text = largeSpec(1.5 * 1024 * 1024);
    await t.http
      .put(`/v1/orgs/${org.id}/openapi/big`)
      .set(...org.admin.auth)
      .send({ source: { text } })
      .expect(201);
    const space = await createSpace(t, org);
    const pageId = await computedPage(org, space.id, 'big');
    const read = () =>
      t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
        .set(...org.admin.auth)
        .expect(200);

    const { seen, restore } = watchRenders();
    try {
      let done = false;
      // Two readers of the same page at once.
      const reading = Promise.all([read(), read()]).finally(() => (done = true));
      let answeredDuringRender = 0;
      let probes = 0;
      while (!done) {
        const before = seen.running > 0;
        await t.http.get('/health/live').expect(200);
        probes += 1;
        // Started before the probe was sent and still under way when its answer came back.
        if (before && seen.running > 0) answeredDuringRender += 1;
      }
      const [first, second] = await reading;
      expectContract(first, 'getPageById');
      expect(first.body.markdown).toContain('`GET /generated/0/{id}`');
      expect(first.body.markdown).toContain('## group-49');
      expect(second.body.markdown).toBe(first.body.markdown);
      expect(probes).toBeGreaterThan(0);
      expect(answeredDuringRender).toBeGreaterThan(0);
      // The concurrent readers shared one render; a later read comes from the cache.
      expect(seen.started).toBe(1);
      expect((await read()).body.markdown).toBe(first.body.markdown);
      expect(seen.started).toBe(1);
    } finally {
      restore();
    }
  });
});

/**
 * The spec source routes (createOpenAPISpec, createOrUpdateOpenAPISpecBySlug) take a body up to
 * specSourceBodyLimit(OPENAPI_MAX_BYTES) instead of BODY_LIMIT, so a spec of OPENAPI_MAX_BYTES fits
 * as text; every other route keeps BODY_LIMIT.
 */
describe('OpenAPI spec sources: body limit', () => {
  const MAX_BYTES = 200_000;
  const LIMIT = specSourceBodyLimit(MAX_BYTES);
  let t: TestApp;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT: '100kb', OPENAPI_MAX_BYTES: String(MAX_BYTES) });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const api = () => `/v1/orgs/${org.id}/openapi`;
  /** A raw JSON body of exactly `bytes` bytes whose source text is filler. */
  const bodyOf = (bytes: number) => {
    const head = '{"source":{"text":"';
    const tail = '"},"slug":"filler"}';
    return head + 'a'.repeat(bytes - head.length - tail.length) + tail;
  };
  const send = (method: 'post' | 'put', url: string, body: string) =>
    t.http[method](url)
      .set(...org.admin.auth)
      .set('Content-Type', 'application/json')
      .send(body);
  /** A valid spec text of exactly `bytes` bytes (JSON, padded with trailing spaces). */
  const specOf = (bytes: number) => {
    const text = largeSpec(bytes - 20_000);
    if (Buffer.byteLength(text) > bytes) throw new Error('fixture too large');
    return text + ' '.repeat(bytes - Buffer.byteLength(text));
  };

  it('lets a body of the spec limit through (n) and refuses one byte more with 413 (n + 1), on POST and PUT', async () => {
    expect(LIMIT).toBeGreaterThan(100 * 1024);
    // At the limit the body passes the gate; its text is larger than OPENAPI_MAX_BYTES, which the module refuses.
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT)), 400, /larger than 200000 bytes/);
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT + 1)), 413);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT)), 400);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT + 1)), 413);
  });

  it('stores a text of OPENAPI_MAX_BYTES (n) larger than BODY_LIMIT, and refuses one byte more (n + 1)', async () => {
    const atLimit = specOf(MAX_BYTES);
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BYTES);
    const created = await t.http
      .put(`${api()}/big`)
      .set(...org.admin.auth)
      .send({ source: { text: atLimit } })
      .expect(201);
    expectContract(created, 'createOrUpdateOpenAPISpecBySlug');
    const raw = await t.http
      .get(`${api()}/big/versions/latest/content/raw`)
      .set(...org.admin.auth)
      .expect(200);
    expect(raw.body.text).toBe(atLimit);
    expectErrorEnvelope(
      await t.http
        .post(api())
        .set(...org.admin.auth)
        .send({ slug: 'bigger', source: { text: `${atLimit} ` } }),
      400,
      /^source\.text: the specification is larger than 200000 bytes$/,
    );
  });

  it('keeps BODY_LIMIT on the other routes of the module', async () => {
    await t.http
      .put(`${api()}/small`)
      .set(...org.admin.auth)
      .send({ source: { text: specOf(30_000) } })
      .expect(201);
    expectErrorEnvelope(
      await t.http
        .patch(`${api()}/small`)
        .set(...org.admin.auth)
        .send({ visibility: 'x'.repeat(150_000) }),
      413,
    );
    expectErrorEnvelope(
      await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'x'.repeat(150_000) }),
      413,
    );
  });
});
