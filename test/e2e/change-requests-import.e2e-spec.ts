import { createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, serveWebsite, Website } from '../support/website-fixture';

describe('change requests (website import into a change request)', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
    org = await createOrganization(t);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const http = () => ({
    get: (path: string) => t.http.get(path).set(...org.admin.auth),
    post: (path: string, body: object) =>
      t.http
        .post(path)
        .set(...org.admin.auth)
        .send(body),
  });

  it('imports into the change request only (main untouched), at the top level or under a page', async () => {
    const space = await createSpace(t, org);
    const cr = (await http().post(`/v1/spaces/${space.id}/change-requests`, {}).expect(201)).body;
    const url = `/v1/spaces/${space.id}/change-requests/${cr.number}`;
    const res = await http()
      .post(`${url}/content/import`, { url: `${site.origin}/docs/`, source: 'website' })
      .expect(201);
    expect(res.body.importedResources).toBeGreaterThan(1);
    expect((await http().get(url).expect(200)).body.revision).toBe(res.body.revision);
    const pages = (await http().get(`${url}/content/pages`).expect(200)).body.pages as { id: string; title: string }[];
    expect(pages.length).toBeGreaterThan(0);
    expect((await http().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages).toEqual([]);

    const under = pages[0].id;
    await http()
      .post(`${url}/content/page/${under}/import`, { url: `${site.origin}/docs/`, source: 'website' })
      .expect(201);
    const after = (await http().get(`${url}/content/pages`).expect(200)).body.pages as { id: string; pages: unknown[] }[];
    expect(after.length).toBe(pages.length);
    expect(after.find((page) => page.id === under)?.pages.length).toBeGreaterThan(0);
    expectErrorEnvelope(await http().post(`${url}/content/page/missing/import`, { url: `${site.origin}/docs/`, source: 'website' }), 404);

    await t.http
      .patch(url)
      .set(...org.admin.auth)
      .send({ status: 'archived' })
      .expect(200);
    expectErrorEnvelope(await http().post(`${url}/content/import`, { url: `${site.origin}/docs/`, source: 'website' }), 409);
  });
});
