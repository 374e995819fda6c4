import { Site } from '../../src/modules/sites/site.entity';
import { SiteSection } from '../../src/modules/sites/site-section.entity';
import { SiteSectionGroup } from '../../src/modules/sites/site-section-group.entity';
import { SiteShareLink } from '../../src/modules/sites/site-share-link.entity';
import { SiteSpace } from '../../src/modules/sites/site-space.entity';
import { Space } from '../../src/modules/space-model/space.entity';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000, grantSpace, walkList } from '../support/org-admin-builders';
import { addSection, createSite, createSiteWithSpaces, sitePath, sitesPath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('sites', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const siteCount = (org: OrgFixture) => t.dataSource.getRepository(Site).countBy({ organizationId: org.id });

  describe('POST /v1/orgs/{organizationId}/sites', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.post(sitesPath(org)).send({ title: 'Docs' }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403, after: async (org) => expect(await siteCount(org)).toBe(0) },
    });

    it('creates a basic public site with its spaces at the root, the first one the default', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await createSpace(t, org, { title: 'Guides' }), await createSpace(t, org, { title: 'API' })];
      const res = await t.http
        .post(sitesPath(org))
        .set(...org.admin.auth)
        .send({ title: 'Docs', spaces: [a.id, b.id, a.id] })
        .expect(201);
      expectContract(res, 'createSite');
      expect(res.headers.location).toBe(res.body.urls.location);
      expect(res.body).toMatchObject({
        object: 'site',
        type: 'basic',
        title: 'Docs',
        visibility: 'public',
        published: false,
        siteSpaces: 2,
        adaptiveContent: { enabled: false },
        ads: { status: 'pending', submittable: false },
        agentsContext: 'included',
        features: [],
        permissions: { view: true, admin: true, create: true, editAdaptiveSchema: true },
      });
      expect(res.body.urls.published).toBeUndefined();
      const rows = await t.dataSource.getRepository(SiteSpace).find({ where: { siteId: res.body.id }, order: { position: 'ASC' } });
      expect(rows.map((row) => [row.spaceId, row.path, row.isDefault, row.sectionId])).toEqual([
        [a.id, 'guides', true, null],
        [b.id, 'api', false, null],
      ]);
    });

    it('creates without a body, and with the flag creates a new space in the same transaction', async () => {
      const org = await createOrganization(t);
      const bare = await t.http
        .post(sitesPath(org))
        .set(...org.admin.auth)
        .expect(201);
      expect(bare.body).toMatchObject({ title: 'Untitled site', siteSpaces: 0, type: 'basic' });
      const res = await t.http
        .post(sitesPath(org))
        .set(...org.admin.auth)
        .send({ title: 'Handbook', createSpace: true, visibility: 'unlisted' })
        .expect(201);
      expect(res.body).toMatchObject({ siteSpaces: 1, visibility: 'unlisted' });
      const [row] = await t.dataSource.getRepository(SiteSpace).findBy({ siteId: res.body.id });
      const space = await t.dataSource.getRepository(Space).findOneByOrFail({ id: row.spaceId });
      expect(space).toMatchObject({ title: 'Handbook', organizationId: org.id });
    });

    it('refuses a space the caller cannot see (404) and writes nothing', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      const foreign = await createSpace(t, other);
      expectErrorEnvelope(
        await t.http
          .post(sitesPath(org))
          .set(...org.admin.auth)
          .send({ spaces: [foreign.id] }),
        404,
      );
      expect(await siteCount(org)).toBe(0);
    });

    it.each([
      ['a title of 1 character', { title: 'a' }, /title/],
      ['a title of 129 characters', { title: 'a'.repeat(129) }, /title/],
      ['an unknown visibility', { visibility: 'private' }, /visibility/],
      ['an unknown type', { type: 'gold' }, /type/],
      ['a null title', { title: null }, /title/],
      ['a null basename (not nullable in the description)', { basename: null }, /basename/],
      ['spaces that are not ids', { spaces: ['a b'] }, /spaces/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(sitesPath(org))
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });

    it('accepts titles of 2 and 128 characters', async () => {
      const org = await createOrganization(t);
      for (const title of ['ab', 'a'.repeat(128)]) expect((await createSite(t, org, { title })).title).toBe(title);
    });
  });

  describe('GET /v1/orgs/{organizationId}/sites', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(sitesPath(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists oldest first, filtered by space, title and published state, walking pages', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const space = await createSpace(t, org);
      const first = await createSite(t, org, { title: 'Alpha docs', spaces: [space.id] });
      const second = await createSite(t, org, { title: 'Beta handbook' });
      const third = await createSite(t, org, { title: 'Gamma DOCS', spaces: [space.id] });
      await t.http
        .post(`${sitePath(org, third.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);

      const all = await t.http
        .get(sitesPath(org))
        .set(...reader.auth)
        .expect(200);
      expectContract(all, 'listSites');
      expect(all.body.items.map((site: any) => site.id)).toEqual([first.id, second.id, third.id]);
      expect(all.body.items[0].permissions).toMatchObject({ view: true, admin: false, create: false, editAdaptiveSchema: false, viewAdaptiveSchema: true });

      const ids = async (query: Record<string, string>) =>
        (
          await t.http
            .get(sitesPath(org))
            .query(query)
            .set(...reader.auth)
            .expect(200)
        ).body.items.map((site: any) => site.id);
      expect(await ids({ space: space.id })).toEqual([first.id, third.id]);
      expect(await ids({ title: 'docs' })).toEqual([first.id, third.id]);
      expect(await ids({ published: 'true' })).toEqual([third.id]);
      expect(await ids({ published: 'false' })).toEqual([first.id, second.id]);
      expect(await ids({ title: 'docs', published: 'false' })).toEqual([first.id]);

      const walk = await walkList(t, sitesPath(org), reader, { limit: 2 });
      expect(walk).toEqual({ ids: [first.id, second.id, third.id], pages: 2, count: 3 });
      await expectLimitUpTo1000(t, sitesPath(org), reader);
      expectErrorEnvelope(
        await t.http
          .get(sitesPath(org))
          .query({ published: 'maybe' })
          .set(...reader.auth),
        400,
        /published/,
      );
    });

    it('shows only the sites of the organization in the path', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t, { admin: org.admin });
      await createSite(t, other);
      const mine = await createSite(t, org);
      const res = await t.http
        .get(sitesPath(org))
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.items.map((site: any) => site.id)).toEqual([mine.id]);
    });
  });

  describe('GET /v1/orgs/{organizationId}/sites/{siteId}', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(sitePath(org, site.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to another organization and for an unknown site',
        also: async (org) => expectErrorEnvelope(await t.http.get(sitePath(org, 'nope')).set(...org.admin.auth), 404),
      },
      member: { role: null, status: 403 },
    });

    it('counts live site spaces (a deleted space is not counted)', async () => {
      const org = await createOrganization(t);
      const { site, spaceIds } = await createSiteWithSpaces(t, org, 2);
      await t.http
        .delete(`/v1/spaces/${spaceIds[1]}`)
        .set(...org.admin.auth)
        .expect(205);
      const res = await t.http
        .get(sitePath(org, site.id))
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getSiteById');
      expect(res.body.siteSpaces).toBe(1);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}/sites/{siteId}', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org, { title: 'Before' }),
      request: (org, site) => t.http.patch(sitePath(org, site.id)).send({ title: 'After' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'read',
        status: 403,
        title: 'refuses a read member with 403 and changes nothing',
        after: async (org) => expect((await t.dataSource.getRepository(Site).findOneByOrFail({ organizationId: org.id })).title).toBe('Before'),
      },
    });

    it('changes title, visibility, basename, hostname, adaptive content, agents context and proxy; null removes the proxy and the hostname', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const res = await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({
          title: 'Renamed',
          visibility: 'share-link',
          basename: 'api',
          hostname: 'docs.example.com',
          adaptiveContent: { enabled: true },
          agentsContext: 'excluded',
          proxy: 'example.com/docs',
        })
        .expect(200);
      expectContract(res, 'updateSiteById');
      expect(res.body).toMatchObject({
        title: 'Renamed',
        visibility: 'share-link',
        basename: 'api',
        hostname: 'docs.example.com',
        adaptiveContent: { enabled: true },
        agentsContext: 'excluded',
        proxy: { origin: 'example.com/docs', target: expect.any(String) },
        features: [{ id: 'sites-adaptive-content', plan: 'basic', frozen: false }],
      });
      const cleared = await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ proxy: null, hostname: null })
        .expect(200);
      expect(cleared.body.proxy).toBeUndefined();
      expect(cleared.body.hostname).toBeUndefined();
      expect(cleared.body.basename).toBe('api');
      expect(cleared.body.title).toBe('Renamed');
    });

    it.each([
      ['a proxy without a path', { proxy: 'example.com' }, /proxy/],
      ['a proxy with a scheme', { proxy: 'https://example.com/docs' }, /proxy/],
      ['a proxy with a one-letter top-level domain', { proxy: 'example.c/docs' }, /proxy/],
      ['a hostname with one label', { hostname: 'localhost' }, /hostname/],
      ['a hostname with two labels', { hostname: 'example.com' }, /hostname/],
      ['an upper-case hostname', { hostname: 'Docs.Example.com' }, /hostname/],
      ['a hostname label ending with a dash', { hostname: 'docs-.example.com' }, /hostname/],
      ['a null title', { title: null }, /title/],
      ['a null basename (not nullable in the description)', { basename: null }, /basename/],
      ['a null visibility', { visibility: null }, /visibility/],
      ['a null adaptiveContent', { adaptiveContent: null }, /adaptiveContent/],
      ['adaptiveContent without enabled', { adaptiveContent: {} }, /enabled/],
      ['an unknown agentsContext', { agentsContext: 'some' }, /agentsContext/],
      ['a basename of 101 characters', { basename: 'a'.repeat(101) }, /basename/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      expectErrorEnvelope(
        await t.http
          .patch(sitePath(org, site.id))
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });

    it('accepts the edges of the hostname and proxy patterns', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const label = `a${'b'.repeat(61)}c`;
      for (const body of [
        { hostname: `${label}.example.com` },
        { hostname: 'a.b.cd' },
        { proxy: 'www.company.com/developer/docs' },
        { proxy: 'my-company.io/docs_v2' },
      ]) {
        await t.http
          .patch(sitePath(org, site.id))
          .set(...org.admin.auth)
          .send(body)
          .expect(200);
      }
      expectErrorEnvelope(
        await t.http
          .patch(sitePath(org, site.id))
          .set(...org.admin.auth)
          .send({ hostname: `a${'b'.repeat(62)}c.example.com` }),
        400,
        /hostname/,
      );
    });

    it('keeps a custom hostname to one site (409)', async () => {
      const org = await createOrganization(t);
      const [a, b] = [await createSite(t, org), await createSite(t, org)];
      await t.http
        .patch(sitePath(org, a.id))
        .set(...org.admin.auth)
        .send({ hostname: 'help.example.com' })
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .patch(sitePath(org, b.id))
          .set(...org.admin.auth)
          .send({ hostname: 'help.example.com' }),
        409,
      );
    });

    it('sets the default site space at the root, or of the default section, and the default section', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 2);
      const res = await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ defaultSiteSpace: siteSpaces[1].id })
        .expect(200);
      expectContract(res, 'updateSiteById');
      const rows = await t.dataSource.getRepository(SiteSpace).findBy({ siteId: site.id });
      expect(Object.fromEntries(rows.map((row) => [row.id, row.isDefault]))).toEqual({ [siteSpaces[0].id]: false, [siteSpaces[1].id]: true });

      const first = await addSection(t, org, site.id);
      const second = await addSection(t, org, site.id);
      expect([first.default, second.default]).toEqual([true, false]);
      await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ defaultSiteSection: second.id })
        .expect(200);
      const sections = await t.dataSource.getRepository(SiteSection).findBy({ siteId: site.id });
      expect(Object.fromEntries(sections.map((row) => [row.id, row.isDefault]))).toEqual({ [first.id]: false, [second.id]: true });
      // The first section's site spaces are not in the default section any more.
      expectErrorEnvelope(
        await t.http
          .patch(sitePath(org, site.id))
          .set(...org.admin.auth)
          .send({ defaultSiteSpace: siteSpaces[0].id }),
        400,
        /defaultSiteSpace/,
      );
      await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ defaultSiteSpace: second.siteSpaces[0].id })
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .patch(sitePath(org, site.id))
          .set(...org.admin.auth)
          .send({ defaultSiteSection: 'unknown' }),
        404,
      );
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/sites/{siteId}', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.delete(sitePath(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403, after: async (org) => expect(await siteCount(org)).toBe(1) },
    });

    it('deletes the site with its site spaces, sections, groups and share links; the spaces stay', async () => {
      const org = await createOrganization(t);
      const { site, spaceIds } = await createSiteWithSpaces(t, org, 1);
      const section = await addSection(t, org, site.id);
      await t.http
        .post(`${sitePath(org, site.id)}/section-groups`)
        .set(...org.admin.auth)
        .send({ title: 'Group', sections: [section.id] })
        .expect(201);
      await t.http
        .post(`${sitePath(org, site.id)}/share-links`)
        .set(...org.admin.auth)
        .send({ name: 'Partners' })
        .expect(201);
      await t.http
        .delete(sitePath(org, site.id))
        .set(...org.admin.auth)
        .expect(204);
      for (const entity of [SiteSpace, SiteSection, SiteSectionGroup, SiteShareLink]) {
        expect(await t.dataSource.getRepository(entity).countBy({ siteId: site.id })).toBe(0);
      }
      expect(await t.dataSource.getRepository(Space).countBy({ id: spaceIds[0] })).toBe(1);
      expectErrorEnvelope(await t.http.get(sitePath(org, site.id)).set(...org.admin.auth), 404);
    });
  });

  describe('POST publish and unpublish', () => {
    itChecksAccess(() => t, {
      given: async (org) => (await createSiteWithSpaces(t, org, 1)).site,
      request: (org, site) => t.http.post(`${sitePath(org, site.id)}/publish`),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'create',
        status: 403,
        after: async (org) => expect((await t.dataSource.getRepository(Site).findOneByOrFail({ organizationId: org.id })).published).toBe(false),
      },
    });

    it('refuses to publish a site without site spaces (400), then publishes and unpublishes', async () => {
      const org = await createOrganization(t);
      const empty = await createSite(t, org);
      expectErrorEnvelope(await t.http.post(`${sitePath(org, empty.id)}/publish`).set(...org.admin.auth), 400, /no site space/);
      const { site } = await createSiteWithSpaces(t, org, 1);
      const published = await t.http
        .post(`${sitePath(org, site.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(published, 'publishSite');
      expect(published.body.published).toBe(true);
      expect(published.body.urls.published).toBe(`http://app.quire.test/sites/${site.id}`);
      const unpublished = await t.http
        .post(`${sitePath(org, site.id)}/unpublish`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(unpublished, 'unpublishSite');
      expect(unpublished.body.published).toBe(false);
      expect(unpublished.body.urls.published).toBeUndefined();
    });

    it('publishes at the custom hostname (without the basename)', async () => {
      const org = await createOrganization(t);
      const { site } = await createSiteWithSpaces(t, org, 1);
      await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ hostname: 'docs.example.com', basename: 'v2' })
        .expect(200);
      const res = await t.http
        .post(`${sitePath(org, site.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);
      // On its own hostname the whole path is the site's (URL resolution reads no basename there).
      expect(res.body.urls.published).toBe('https://docs.example.com');
    });
  });

  describe("members' sites count", () => {
    it('counts the sites showing a space granted to the member', async () => {
      const org = await createOrganization(t);
      const member = await addMember(t, org, 'read');
      const [granted, other] = [await createSpace(t, org), await createSpace(t, org)];
      await grantSpace(t, org, granted.id, { userId: member.user.id });
      await createSite(t, org, { spaces: [granted.id] });
      await createSite(t, org, { spaces: [granted.id, other.id] });
      await createSite(t, org, { spaces: [other.id] });
      const res = await t.http
        .get(`/v1/orgs/${org.id}/members/${member.user.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.sites).toBe(2);
      const admin = await t.http
        .get(`/v1/orgs/${org.id}/members/${org.admin.user.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(admin.body.sites).toBe(0);
    });
  });
});
