import { Writable } from 'node:stream';
import { expectRefused } from '../support/access-checks';
import { addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, generatedSite, GIF_4x3, serveWebsite, Website } from '../support/website-fixture';

describe('POST /v1/spaces/{spaceId}/content/import', () => {
  let t: TestApp;
  let site: Website;
  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const importInto = (app: TestApp, org: OrgFixture, spaceId: string, url: string, body: Record<string, unknown> = {}) =>
    app.http
      .post(`/v1/spaces/${spaceId}/content/import`)
      .set(...org.admin.auth)
      .send({ url, source: 'website', ...body });
  const activeRevision = async (spaceId: string, org: OrgFixture) =>
    (
      await t.http
        .get(`/v1/spaces/${spaceId}`)
        .set(...org.admin.auth)
        .expect(200)
    ).body.revision as string;

  /** The import of the docs site into `spaceId`, without a token. */
  const importDocs = (spaceId: string) => t.http.post(`/v1/spaces/${spaceId}/content/import`).send({ url: `${site.origin}/docs/`, source: 'website' });

  it('requires authentication', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await expectRefused(() => importDocs(space.id), [null, 401]);
  });

  it('answers 404 to a caller outside the organization, and for an unknown space', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const outsider = await createUser(t);
    await expectRefused(() => importDocs(space.id), [outsider, 404]);
    await expectRefused(() => importDocs('nope'), [org.admin, 404]);
  });

  it('refuses a member who may only read with 403, and imports nothing', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const reader = await addMember(t, org, 'read');
    const before = site.requests.length;
    await expectRefused(() => importDocs(space.id), [reader, 403]);
    expect(site.requests.length).toBe(before);
  });

  it('refuses a locked space with 403', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await t.http
      .patch(`/v1/spaces/${space.id}`)
      .set(...org.admin.auth)
      .send({ editMode: 'locked' })
      .expect(200);
    expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/docs/`), 403, /locked/);
    expect(await activeRevision(space.id, org)).toBe(space.revisionId);
  });

  describe('a documentation site', () => {
    let org: OrgFixture;
    let space: { id: string; revisionId: string };
    let result: { revision: string; importedResources: number; totalResources: number };
    let requested: string[];

    beforeAll(async () => {
      org = await createOrganization(t);
      space = await createSpace(t, org);
      const before = site.requests.length;
      const res = await importInto(t, org, space.id, `${site.origin}/docs/`);
      expect(res.status).toBe(201);
      result = res.body;
      requested = site.requests.slice(before);
    });

    it('answers the new revision and how many resources it imported out of those found', async () => {
      expect(result).toEqual({ revision: expect.any(String), importedResources: 6, totalResources: 9 });
    });

    it('makes the new revision the active one, on top of the previous one', async () => {
      expect(await activeRevision(space.id, org)).toBe(result.revision);
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getCurrentRevision');
      expect(res.body).toMatchObject({ object: 'revision', id: result.revision, type: 'edits', parents: [space.revisionId] });
    });

    it('builds the page tree from the URL hierarchy, with slugs and paths', async () => {
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content/pages`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'listPages');
      const outline = (pages: any[]): unknown[] => pages.map((page) => ({ title: page.title, slug: page.slug, path: page.path, pages: outline(page.pages) }));
      expect(outline(res.body.pages)).toEqual([
        { title: 'Acme Documentation', slug: 'acme-documentation', path: 'acme-documentation', pages: [] },
        { title: 'User Guide', slug: 'guide', path: 'guide', pages: [{ title: 'Installation', slug: 'install', path: 'guide/install', pages: [] }] },
        { title: 'Widgets', slug: 'widgets', path: 'widgets', pages: [] },
      ]);
      expect(res.body.pages[1]).toMatchObject({ description: 'About User Guide', documentId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    });

    it('stays on the site: respects robots.txt, the start path, the origin, and gives up on a redirect loop', async () => {
      expect(requested[0]).toBe('/robots.txt');
      expect(requested).toEqual(expect.arrayContaining(['/docs/', '/docs/guide', '/docs/guide/install.html', '/docs/widgets', '/docs/missing']));
      expect(requested).not.toContain('/docs/private/secret');
      expect(requested).not.toContain('/outside');
      expect(requested.filter((path) => path === '/docs/loop').length).toBe(6);
    });

    it('downloads images as files, with their dimensions, and rewrites their references', async () => {
      const files = await t.http
        .get(`/v1/spaces/${space.id}/content/files`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(files, 'listFiles');
      expect(files.body.items).toEqual([
        expect.objectContaining({ name: 'logo.gif', contentType: 'image/gif', size: GIF_4x3.length, dimensions: { width: 4, height: 3 } }),
        expect.objectContaining({ name: 'diagram.svg', contentType: 'image/svg+xml', dimensions: { width: 40, height: 20 } }),
      ]);
      const [logo, diagram] = files.body.items;
      const install = await t.http
        .get(`/v1/spaces/${space.id}/content/path/guide/install`)
        .set(...org.admin.auth)
        .expect(200);
      expect(install.body.markdown).toContain(`![Diagram](/files/${diagram.id})`);
      expect(install.body.markdown).toContain(`![Logo again](/files/${logo.id})`);
      const bytes = await t.http
        .get(new URL(logo.downloadURL).pathname)
        .set(...org.admin.auth)
        .buffer(true)
        .expect(200);
      expect(Buffer.compare(bytes.body as Buffer, GIF_4x3)).toBe(0);
    });

    it("converts each page's main content to markdown, without the site's chrome, links pointing at the space's pages", async () => {
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content/path/guide`)
        .query({ 'format.markdown.refs': 'stable' })
        .set(...org.admin.auth)
        .expect(200);
      const pages = await t.http
        .get(`/v1/spaces/${space.id}/content/pages`)
        .set(...org.admin.auth)
        .expect(200);
      const install = pages.body.pages[1].pages[0];
      expect(res.body.markdown).toBe(
        'The guide explains everyday use.\n\n## Daily work\n\nWidgets can be arranged, but this section is about daily work.\n\n' +
          `Read [the installation](/pages/${install.id}#requirements), then [the missing page](/missing).`,
      );
      expect(install.markdown).toContain('```sh\nnpm install acme\n```');
      for (const chrome of ['footer text', 'tracking', 'Outside', '# Installation']) expect(install.markdown).not.toContain(chrome);
    });

    it('adds a second import after the existing pages, with unique slugs, and keeps the old revision as it was', async () => {
      const second = await importInto(t, org, space.id, `${site.origin}/docs/guide`);
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ importedResources: 4 });
      const pages = await t.http
        .get(`/v1/spaces/${space.id}/content/pages`)
        .set(...org.admin.auth)
        .expect(200);
      expect(pages.body.pages.map((page: { path: string }) => page.path)).toEqual(['acme-documentation', 'guide', 'widgets', 'user-guide', 'install']);
      const old = await t.http
        .get(`/v1/spaces/${space.id}/revisions/${result.revision}/pages`)
        .set(...org.admin.auth)
        .expect(200);
      expect(old.body.pages).toHaveLength(3);
    });
  });

  describe('refused URLs (400, and no revision)', () => {
    let org: OrgFixture;
    let space: { id: string; revisionId: string };
    beforeAll(async () => {
      org = await createOrganization(t);
      space = await createSpace(t, org);
    });
    afterEach(async () => expect(await activeRevision(space.id, org)).toBe(space.revisionId));

    it.each([
      ['a missing url', { url: undefined }, /url/],
      ['a url that is not one', { url: 'not a url' }, /url/],
      ['a url of another scheme', { url: 'ftp://127.0.0.1/docs/' }, /url/],
      ['a url of 2049 characters', { url: `http://127.0.0.1/${'a'.repeat(2032)}` }, /url/],
      ['another source', { source: 'git' }, /source/],
      ['a missing source', { source: undefined }, /source/],
      ['an unknown field', { depth: 3 }, /depth/],
    ])('%s', async (_case, body, message) => {
      expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/docs/`, body), 400, message);
    });

    it('an unreachable URL', async () => {
      const closed = await serveWebsite({});
      await closed.close();
      expectErrorEnvelope(await importInto(t, org, space.id, `${closed.origin}/docs/`), 400, /could not be fetched.*could not reach/);
    });

    it('a page that is not HTML', async () => {
      expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/plain.txt`), 400, /not an HTML page \(content type text\/plain\)/);
    });

    it('a page that does not exist', async () => {
      expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/docs/missing`), 400, /answered HTTP 404/);
    });

    it('a page robots.txt disallows', async () => {
      expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/docs/private/secret`), 400, /robots\.txt/);
    });

    it('a redirect loop', async () => {
      expectErrorEnvelope(await importInto(t, org, space.id, `${site.origin}/docs/loop`), 400, /more than 5 redirects/);
    });
  });

  describe('with private targets not allowed (the default)', () => {
    let guarded: TestApp;
    beforeAll(async () => (guarded = await createTestApp()));
    afterAll(() => guarded.close());

    it.each([
      ['a loopback address', () => `${site.origin}/docs/`, /private address 127\.0\.0\.1/],
      ['a name that resolves to loopback', () => `${site.origin.replace('127.0.0.1', 'localhost')}/docs/`, /localhost: it resolves to the private address/],
    ])('refuses %s with 400, fetching nothing', async (_case, url, message) => {
      const org = await createOrganization(guarded);
      const space = await createSpace(guarded, org);
      const before = site.requests.length;
      expectErrorEnvelope(await importInto(guarded, org, space.id, url()), 400, message);
      expect(site.requests.length).toBe(before);
    });
  });

  describe('bounds', () => {
    let bounded: TestApp;
    let generated: Website;
    const logs: string[] = [];
    beforeAll(async () => {
      const sink = new Writable({ write: (chunk, _encoding, done) => (logs.push(chunk.toString()), done()) });
      bounded = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', IMPORT_MAX_PAGES: '20', IMPORT_CONCURRENCY: '3', LOG_LEVEL: 'info' }, sink);
      generated = await serveWebsite(generatedSite(120));
    });
    afterAll(async () => {
      await generated.close();
      await bounded.close();
    });

    it('imports at most IMPORT_MAX_PAGES pages, counts what it left, and logs its progress', async () => {
      const org = await createOrganization(bounded);
      const space = await createSpace(bounded, org);
      const res = await importInto(bounded, org, space.id, `${generated.origin}/site/`);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ revision: expect.any(String), importedResources: 20, totalResources: 120 });
      const requestedPages = generated.requests.filter((path) => path !== '/robots.txt');
      expect(requestedPages).toHaveLength(20);
      expect(logs.join('')).toMatch(/pages fetched, \d+ queued/);
      expect(logs.join('')).toMatch(/imported 20 of 120 resources .*stopped early: pages bound reached/);
    });
  });

  describe('depth and time bounds', () => {
    let bounded: TestApp;
    let slow: Website;
    beforeAll(async () => {
      bounded = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', IMPORT_MAX_DEPTH: '1', IMPORT_TIMEOUT_MS: '1000' });
      slow = await serveWebsite({
        '/slow/': { body: '<main><h1>Slow home</h1><a href="/slow/a">A</a> <a href="/slow/hang">Hang</a></main>' },
        '/slow/a': { body: '<main><h1>A</h1><a href="/slow/a/deep">Deeper</a></main>' },
        '/slow/a/deep': { body: '<main><h1>Deep</h1></main>' },
        '/slow/hang': () => undefined, // never answers
      });
    });
    afterAll(async () => {
      await slow.close();
      await bounded.close();
    });

    it('follows links IMPORT_MAX_DEPTH hops deep, and stops waiting at IMPORT_TIMEOUT_MS with what it has', async () => {
      const org = await createOrganization(bounded);
      const space = await createSpace(bounded, org);
      const started = Date.now();
      const res = await importInto(bounded, org, space.id, `${slow.origin}/slow/`);
      expect(res.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.body).toEqual({ revision: expect.any(String), importedResources: 2, totalResources: 3 });
      expect(slow.requests).not.toContain('/slow/a/deep');
      const pages = await bounded.http
        .get(`/v1/spaces/${space.id}/content/pages`)
        .set(...org.admin.auth)
        .expect(200);
      expect(pages.body.pages.map((page: { title: string }) => page.title)).toEqual(['Slow home', 'A']);
    });
  });
});
