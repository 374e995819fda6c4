import { newId } from '../../src/common/ids';
import { ComputedSource } from '../../src/modules/content/revision-page.entity';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpecWorkers } from '../../src/modules/openapi-specs/source/spec-workers';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract } from '../support/contract';
import { largeSpec } from '../support/openapi-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
