import { createOrganization, OrgFixture } from '../support/builders';
import { createCollection, createImportedSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, serveWebsite, Website } from '../support/website-fixture';

/**
 * `urls.app` without a web application (no APP_URL): Quire serves no web pages, so every `urls.app`
 * it hands out names the same resource in its API, and following it answers instead of 404.
 */
describe('urls.app without APP_URL', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;
  let imported: Awaited<ReturnType<typeof createImportedSpace>>;
  beforeAll(async () => {
    t = await createTestApp({ APP_URL: '', OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
    org = await createOrganization(t);
    imported = await createImportedSpace(t, org, site);
  });
  afterAll(async () => {
    await t.close();
    await site.close();
  });

  /** Follows an absolute `urls.app` on the test server (PUBLIC_URL is http://quire.test). */
  const follow = (url: string) => {
    expect(url.startsWith('http://quire.test/v1/')).toBe(true);
    return t.http.get(url.slice('http://quire.test'.length)).set(...org.admin.auth);
  };

  it('points organizations, collections, spaces, revisions and pages at their API URL, which answers 200', async () => {
    const organization = await t.http
      .get(`/v1/orgs/${org.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(organization.body.urls.app).toBe(organization.body.urls.location);

    const collection = await createCollection(t, org);
    const collectionJson = await t.http
      .get(`/v1/collections/${collection.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(collectionJson.body.urls.app).toBe(collectionJson.body.urls.location);

    const space = await t.http
      .get(`/v1/spaces/${imported.space.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(space.body.urls.app).toBe(space.body.urls.location);
    expect(space.body.urls.published).toBeUndefined(); // no web application to publish to

    const revision = await t.http
      .get(`/v1/spaces/${imported.space.id}/revisions/${imported.revision}`)
      .set(...org.admin.auth)
      .expect(200);
    expect((await follow(revision.body.urls.app)).status).toBe(200);

    const [path, pageId] = Object.entries(imported.pages)[0];
    const page = await t.http
      .get(`/v1/spaces/${imported.space.id}/content/page/${pageId}`)
      .set(...org.admin.auth)
      .expect(200);
    const followed = await follow(page.body.urls.app);
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({ id: pageId, path });
  });
});
