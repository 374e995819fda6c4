import { GitBookAPI } from '@gitbook/api';
import { SITE_REDIRECTS, SiteRedirectsSource } from '../../src/modules/sites/site-redirects.port';
import { addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSite, sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, serverUrl, TestApp } from '../support/test-app';

/**
 * Site redirects (issue 26, point 8): the public routes, and the `SITE_REDIRECTS` port URL
 * resolution asks before a 404 (redirect precedence, wildcards, drafts, moved pages).
 */
describe('site redirects', () => {
  let t: TestApp;
  let org: OrgFixture;
  let port: SiteRedirectsSource;
  let site: { id: string };
  let space: { id: string };
  let other: { id: string };
  let siteSpaces: { id: string; space: { id: string } }[];
  let pages: Record<string, string>;

  const post = (path: string, body?: object) =>
    t.http
      .post(path)
      .set(...org.admin.auth)
      .send(body);
  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const redirects = () => `${sitePath(org, site.id)}/redirects`;

  /** A space whose main revision has Guide (guide) › Install (guide/install), and Changelog (changelog). */
  async function spaceWithPages(): Promise<{ id: string }> {
    const created = await createSpace(t, org, { title: 'Handbook' });
    const cr = (await post(`/v1/spaces/${created.id}/change-requests`, { subject: 'pages' }).expect(201)).body.id;
    const first = await post(`/v1/spaces/${created.id}/change-requests/${cr}/content?compat=false`, {
      changes: [
        { operation: 'insert_page', title: 'Guide', slug: 'guide', document: { markdown: 'guide' } },
        { operation: 'insert_page', title: 'Changelog', slug: 'changelog', document: { markdown: 'changes' } },
      ],
    });
    if (first.status !== 200) throw new Error(`content answered ${first.status}: ${JSON.stringify(first.body)}`);
    const guide = first.body.changes[0].page.id;
    await post(`/v1/spaces/${created.id}/change-requests/${cr}/content?compat=false`, {
      changes: [{ operation: 'insert_page', title: 'Install', slug: 'install', into: guide, document: { markdown: 'install' } }],
    }).expect(200);
    await post(`/v1/spaces/${created.id}/change-requests/${cr}/merge`).expect(200);
    return created;
  }

  beforeAll(async () => {
    t = await createTestApp();
    port = t.app.get<SiteRedirectsSource>(SITE_REDIRECTS);
    org = await createOrganization(t);
    space = await spaceWithPages();
    other = await createSpace(t, org, { title: 'Reference' });
    site = await createSite(t, org, { spaces: [space.id, other.id] });
    await post(`${sitePath(org, site.id)}/publish`).expect(200);
    siteSpaces = (await get(`${sitePath(org, site.id)}/site-spaces`).expect(200)).body.items;
    const tree = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages;
    pages = {};
    const walk = (list: { id: string; path: string; pages?: unknown[] }[]) =>
      list.forEach((page) => {
        pages[page.path] = page.id;
        walk((page.pages ?? []) as never);
      });
    walk(tree);
  });
  afterAll(() => t.close());

  const siteSpaceOf = (spaceId: string) => siteSpaces.find((row) => row.space.id === spaceId)!.id;

  describe('CRUD', () => {
    it('creates (201), reads, lists, updates and deletes a redirect, every body as the public schemas say', async () => {
      const created = await post(redirects(), { source: '/crud/old', destination: { kind: 'external', url: 'https://example.com/new' } }).expect(201);
      expectContract(created, 'createSiteRedirect');
      expect(created.body).toMatchObject({ object: 'site-redirect', source: '/crud/old', draft: false, captureWildcard: false, permanent: false });
      expect(created.body.updatedAt).toBeUndefined();

      const list = await get(`${redirects()}?search=CRUD`).expect(200);
      expectContract(list, 'listSiteRedirects');
      expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([created.body.id]);

      const updated = await t.http
        .patch(`${redirects()}/${created.body.id}`)
        .set(...org.admin.auth)
        .send({ permanent: true, destination: { kind: 'site-space', siteSpaceId: siteSpaceOf(other.id) } })
        .expect(200);
      expectContract(updated, 'updateSiteRedirectById');
      expect(updated.body).toMatchObject({ permanent: true, destination: { kind: 'site-space', siteSpaceId: siteSpaceOf(other.id) } });
      expect(updated.body.updatedAt).toEqual(expect.any(String));

      await t.http
        .delete(`${redirects()}/${created.body.id}`)
        .set(...org.admin.auth)
        .expect(205);
      await t.http
        .delete(`${redirects()}/${created.body.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect((await get(`${redirects()}?search=crud`).expect(200)).body.items).toEqual([]);
    });

    it('turns a path destination into the page of a site space, and refuses what names nothing of the site (400), nothing written', async () => {
      const res = await post(redirects(), { source: '/by-path', destination: { kind: 'path', spaceId: space.id, path: 'guide/install' } }).expect(201);
      expect(res.body.destination).toEqual({ kind: 'site-page', siteSpaceId: siteSpaceOf(space.id), pageId: pages['guide/install'] });
      const outsiderSite = await createSite(t, org, { spaces: [other.id] });
      const foreignSiteSpace = (await get(`${sitePath(org, outsiderSite.id)}/site-spaces`).expect(200)).body.items[0].id;
      const bad: [object, RegExp][] = [
        [{ source: 'no-slash', destination: { kind: 'external', url: 'https://example.com' } }, /source/],
        [{ source: '/a*b', destination: { kind: 'external', url: 'https://example.com' } }, /source/],
        [{ source: '/x', destination: { kind: 'somewhere' } }, /destination.kind/],
        [{ source: '/x', destination: { kind: 'external', url: 'javascript:alert(1)' } }, /destination.url/],
        [{ source: '/x', destination: { kind: 'site-space', siteSpaceId: foreignSiteSpace } }, /not in this site/],
        [{ source: '/x', destination: { kind: 'site-page', siteSpaceId: siteSpaceOf(space.id), pageId: 'nope' } }, /pageId/],
        [{ source: '/x', destination: { kind: 'path', spaceId: space.id, path: 'missing' } }, /no page/],
        [{ source: '/x' }, /destination/],
      ];
      for (const [body, message] of bad) expectErrorEnvelope(await post(redirects(), body), 400, message);
      expect((await get(`${redirects()}?search=/x`).expect(200)).body.items).toEqual([]);
      expectErrorEnvelope(await post(redirects(), { source: '/by-path', destination: { kind: 'external', url: 'https://example.com' } }), 409);
    });

    it('lets members read and only admins write; outsiders get 404', async () => {
      const member = await addMember(t, org, 'create');
      await t.http
        .get(redirects())
        .set(...member.auth)
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .post(redirects())
          .set(...member.auth)
          .send({ source: '/m', destination: { kind: 'external', url: 'https://example.com' } }),
        403,
      );
      const outsider = await createUser(t);
      expectErrorEnvelope(await t.http.get(redirects()).set(...outsider.auth), 404);
      expectErrorEnvelope(await t.http.get(redirects()), 401);
    });

    it('walks a list page by page (keyset), ordered by source, drafts apart', async () => {
      const fresh = await createSite(t, org, { spaces: [other.id] });
      const base = `${sitePath(org, fresh.id)}/redirects`;
      for (const source of ['/c', '/a', '/b']) await post(base, { source, destination: { kind: 'external', url: 'https://example.com' } }).expect(201);
      await post(base, { source: '/a', draft: true, destination: { kind: 'external', url: 'https://example.com/draft' } }).expect(201);
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await get(`${base}?orderBy=source&limit=1${page ? `&page=${page}` : ''}`).expect(200);
        expectContract(res, 'listSiteRedirects');
        seen.push(...res.body.items.map((item: { source: string }) => item.source));
        page = res.body.next?.page;
      } while (page);
      expect(seen).toEqual(['/a', '/b', '/c']);
      const drafts = await get(`${base}?draft=true`).expect(200);
      expect(drafts.body.items.map((item: { source: string; draft: boolean }) => [item.source, item.draft])).toEqual([['/a', true]]);
      expectErrorEnvelope(await get(`${base}?orderBy=source&page=${encodeURIComponent(Buffer.from('{"l":"x","k":[]}').toString('base64url'))}`), 400);
    });
  });

  describe('bulk upsert', () => {
    it('creates, updates, deletes and publishes by source, one result per item; a malformed item refuses the whole body', async () => {
      const fresh = await createSite(t, org, { spaces: [other.id] });
      const base = `${sitePath(org, fresh.id)}/redirects`;
      const url = 'https://example.com/';
      const first = await t.http
        .put(base)
        .set(...org.admin.auth)
        .send({
          redirects: [
            { source: '/one', destination: { kind: 'external', url: `${url}1` } },
            { source: '/two', intent: 'draft', destination: { kind: 'external', url: `${url}2` }, permanent: true },
            { source: '/three', destination: { kind: 'site-space', siteSpaceId: 'unknown' } },
          ],
        })
        .expect(200);
      expectContract(first, 'bulkUpsertSiteRedirects');
      expect(first.body.results.map((r: { status: string; source: string; draft: boolean }) => [r.status, r.source, r.draft])).toEqual([
        ['created', '/one', false],
        ['created', '/two', true],
        ['error', '/three', false],
      ]);
      const second = await t.http
        .put(base)
        .set(...org.admin.auth)
        .send({
          redirects: [
            { source: '/one', destination: { kind: 'external', url: `${url}uno` } },
            { source: '/two', intent: 'publish' },
            { source: '/one', destination: null },
          ],
        })
        .expect(200);
      expectContract(second, 'bulkUpsertSiteRedirects');
      expect(second.body.results.map((r: { status: string }) => r.status)).toEqual(['updated', 'published', 'deleted']);
      const live = (await get(base).expect(200)).body.items;
      expect(live.map((item: { source: string; permanent: boolean; draft: boolean }) => [item.source, item.permanent, item.draft])).toEqual([
        ['/two', true, false],
      ]);
      expect((await get(`${base}?draft=true`).expect(200)).body.items).toEqual([]);

      expectErrorEnvelope(
        await t.http
          .put(base)
          .set(...org.admin.auth)
          .send({
            redirects: [
              { source: '/new', destination: { kind: 'external', url } },
              { source: 'bad', destination: null },
            ],
          }),
        400,
        /redirects.1.source/,
      );
      expect((await get(base).expect(200)).body.items).toHaveLength(1);
      expectErrorEnvelope(
        await t.http
          .put(base)
          .set(...org.admin.auth)
          .send({ redirects: [] }),
        400,
      );
    });
  });

  describe('matching (the port, and getSiteRedirectBySource)', () => {
    let fresh: { id: string };
    let base: string;
    let freshSiteSpace: string;
    beforeAll(async () => {
      fresh = await createSite(t, org, { spaces: [space.id] });
      base = `${sitePath(org, fresh.id)}/redirects`;
      freshSiteSpace = (await get(`${sitePath(org, fresh.id)}/site-spaces`).expect(200)).body.items[0].id;
      const add = (body: object) => post(base, body).expect(201);
      await add({ source: '/docs/*', destination: { kind: 'external', url: 'https://wide.example.com/' } });
      await add({ source: '/docs/api/*', captureWildcard: true, permanent: true, destination: { kind: 'external', url: 'https://api.example.com/v2' } });
      await add({ source: '/docs/api/exact', destination: { kind: 'site-page', siteSpaceId: freshSiteSpace, pageId: pages['guide/install'] } });
      await add({ source: '/old-guide*', captureWildcard: true, destination: { kind: 'site-page', siteSpaceId: freshSiteSpace, pageId: pages.guide } });
      await add({ source: '/drafted', draft: true, destination: { kind: 'external', url: 'https://draft.example.com' } });
      await add({ source: '/home', permanent: true, destination: { kind: 'site-space', siteSpaceId: freshSiteSpace } });
    });

    it('prefers an exact source, then the longest wildcard; captures the suffix when asked; permanent says 308/307', async () => {
      // Expected answers are written out, not derived.
      expect(await port.match(fresh.id, '/docs/api/exact')).toEqual({ location: '/guide/install', external: false, permanent: false });
      expect(await port.match(fresh.id, '/docs/api/users/list')).toEqual({
        location: 'https://api.example.com/v2/users/list',
        external: true,
        permanent: true,
      });
      expect(await port.match(fresh.id, '/docs/other')).toEqual({ location: 'https://wide.example.com/', external: true, permanent: false });
      expect(await port.match(fresh.id, '/old-guide/setup')).toEqual({ location: '/guide/setup', external: false, permanent: false });
      expect(await port.match(fresh.id, '/home')).toEqual({ location: '/', external: false, permanent: true });
      expect(await port.match(fresh.id, '/docs')).toBeNull();
      expect(await port.match(fresh.id, '/nothing')).toBeNull();
    });

    it("answers @gitbook/api's getSiteRedirectBySource as the renderer calls it", async () => {
      // Typed by what the test calls (the package's declarations import './client' without an extension).
      const api = new GitBookAPI({ endpoint: serverUrl(t), authToken: org.admin.token }) as unknown as {
        orgs: { getSiteRedirectBySource(org: string, site: string, query: { source: string }): Promise<{ data: unknown }> };
      };
      const res = await api.orgs.getSiteRedirectBySource(org.id, fresh.id, { source: '/old-guide/a' });
      expect(res.data).toMatchObject({ redirect: { source: '/old-guide*', captureWildcard: true }, target: `http://app.quire.test/sites/${fresh.id}/guide/a` });
    });

    it('never serves a draft redirect', async () => {
      expect(await port.match(fresh.id, '/drafted')).toBeNull();
      expectErrorEnvelope(await get(`${sitePath(org, fresh.id)}/redirect?source=/drafted`), 404);
    });

    it('answers getSiteRedirectBySource with the redirect and its target (absolute with a hostname)', async () => {
      const res = await get(`${sitePath(org, fresh.id)}/redirect?source=/docs/api/users`).expect(200);
      expectContract(res, 'getSiteRedirectBySource');
      expect(res.body).toMatchObject({ redirect: { source: '/docs/api/*', permanent: true }, target: 'https://api.example.com/v2/users' });
      await t.http
        .patch(sitePath(org, fresh.id))
        .set(...org.admin.auth)
        .send({ hostname: 'docs.redirects.example.com' })
        .expect(200);
      const internal = await get(`${sitePath(org, fresh.id)}/redirect?source=/docs/api/exact`).expect(200);
      expect(internal.body.target).toBe('https://docs.redirects.example.com/guide/install');
      expectErrorEnvelope(await get(`${sitePath(org, fresh.id)}/redirect?source=nope`), 400);
      expectErrorEnvelope(await get(`${sitePath(org, fresh.id)}/redirect?source=/unknown`), 404);
    });

    it('stops serving a redirect whose page is gone', async () => {
      const cr = (await post(`/v1/spaces/${space.id}/change-requests`, { subject: 'drop' }).expect(201)).body.id;
      await post(`/v1/spaces/${space.id}/change-requests/${cr}/content?compat=false`, {
        changes: [{ operation: 'delete_page', page: pages.changelog }],
      }).expect(200);
      await post(base, { source: '/changes', destination: { kind: 'site-page', siteSpaceId: freshSiteSpace, pageId: pages.changelog } }).expect(201);
      expect(await port.match(fresh.id, '/changes')).toEqual({ location: '/changelog', external: false, permanent: false });
      await post(`/v1/spaces/${space.id}/change-requests/${cr}/merge`).expect(200);
      expect(await port.match(fresh.id, '/changes')).toBeNull();
    });
  });

  describe('moved pages', () => {
    it("keeps a page's old URL working after a change-request merge moved it (permanent), in every published site showing it", async () => {
      const cr = (await post(`/v1/spaces/${space.id}/change-requests`, { subject: 'rename' }).expect(201)).body.id;
      await post(`/v1/spaces/${space.id}/change-requests/${cr}/content?compat=false`, {
        changes: [{ operation: 'update_page', page: pages['guide/install'], title: 'Installation', slug: 'installation' }],
      }).expect(200);
      expect(await port.match(site.id, '/handbook/guide/install')).toBeNull();
      await post(`/v1/spaces/${space.id}/change-requests/${cr}/merge`).expect(200);
      // The space is the root's default site space: served at the site's root, and at its own path.
      expect(await port.match(site.id, '/guide/install')).toEqual({ location: '/guide/installation', external: false, permanent: true });
      expect(await port.match(site.id, '/handbook/guide/install')).toEqual({ location: '/guide/installation', external: false, permanent: true });
      // A redirect of the site comes first.
      await post(redirects(), { source: '/guide/install', destination: { kind: 'external', url: 'https://example.com/first' } }).expect(201);
      expect(await port.match(site.id, '/guide/install')).toEqual({ location: 'https://example.com/first', external: true, permanent: false });
      // The other site space's paths are not the moved page's.
      expect(await port.match(site.id, '/reference/guide/install')).toBeNull();
    });

    it('keeps nothing for spaces no published site shows', async () => {
      const lonely = await spaceWithPages();
      const ids = (await get(`/v1/spaces/${lonely.id}/content/pages`).expect(200)).body.pages;
      const cr = (await post(`/v1/spaces/${lonely.id}/change-requests`, { subject: 'rename' }).expect(201)).body.id;
      await post(`/v1/spaces/${lonely.id}/change-requests/${cr}/content?compat=false`, {
        changes: [{ operation: 'update_page', page: ids[0].id, slug: 'renamed' }],
      }).expect(200);
      await post(`/v1/spaces/${lonely.id}/change-requests/${cr}/merge`).expect(200);
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM space_moved_pages WHERE space_id = $1`, [lonely.id]);
      expect(n).toBe(0);
    });
  });
});
