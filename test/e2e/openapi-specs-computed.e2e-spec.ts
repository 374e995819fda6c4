import { newId } from '../../src/common/ids';
import { ComputedSource } from '../../src/modules/content/revision-page.entity';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract } from '../support/contract';
import { petstore } from '../support/openapi-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
