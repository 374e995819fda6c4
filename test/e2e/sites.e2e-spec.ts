import { Site } from '../../src/modules/sites/site.entity';
import { SiteSection } from '../../src/modules/sites/site-section.entity';
import { SiteSectionGroup } from '../../src/modules/sites/site-section-group.entity';
import { SiteShareLink } from '../../src/modules/sites/site-share-link.entity';
import { SiteSpace } from '../../src/modules/sites/site-space.entity';
import { Space } from '../../src/modules/space-model/space.entity';
import { itChecksAccess } from '../support/access-checks';
import { overlappingQueries } from '../support/query-overlap';
import { OrgFixture, addMember, createOrganization, createUser, membershipOf } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { expectLimitUpTo1000, grantSpace, walkList } from '../support/org-admin-builders';
import { addSection, createSite, createSiteWithSpaces, sitePath, sitesPath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { TestApp, createTestApp, serverUrl } from '../support/test-app';
import { IsNull } from 'typeorm';
import { GitBookAPI } from '@gitbook/api';
import { SITE_REDIRECTS, SiteRedirectsSource } from '../../src/modules/sites/site-redirects.port';
import { DraftPage, RevisionWriter, documentPage } from '../../src/modules/content/revision-writer';
import { SiteSearchService } from '../../src/modules/sites/search/site-search.service';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';

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

describe('site sections, section groups and structure', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const sections = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/sections`;
  const groups = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/section-groups`;
  const sectionRows = (siteId: string) => t.dataSource.getRepository(SiteSection).find({ where: { siteId }, order: { position: 'ASC', id: 'ASC' } });
  /** The structure as ids: sections as ids, groups as [id, [section ids]]. */
  const tree = async (org: OrgFixture, siteId: string) => {
    const res = await t.http
      .get(`${sitePath(org, siteId)}/structure`)
      .set(...org.admin.auth)
      .expect(200);
    expectContract(res, 'getSiteStructure');
    return res.body.structure.map((item: any) => (item.object === 'site-section-group' ? [item.id, item.sections.map((s: any) => s.id)] : item.id));
  };

  describe('POST …/sections', () => {
    itChecksAccess(() => t, {
      given: async (org) => ({ site: await createSite(t, org), space: await createSpace(t, org) }),
      request: (org, { site, space }) => t.http.post(sections(org, site.id)).send({ spaceId: space.id, title: 'Guides' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses an editor with 403',
        after: async (_org, { site }) => expect(await sectionRows(site.id)).toEqual([]),
      },
    });

    it('the first section becomes the default and takes over the root site spaces', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 2);
      const space = await createSpace(t, org, { title: 'Reference' });
      const res = await t.http
        .post(sections(org, site.id))
        .set(...org.admin.auth)
        .send({ spaceId: space.id, title: 'Guides', icon: 'book' })
        .expect(201);
      expectContract(res, 'addSectionToSite');
      expect(res.body).toMatchObject({ object: 'site-section', title: 'Guides', path: 'guides', default: true, icon: 'book', draft: false });
      expect(res.body.siteSpaces.map((item: any) => [item.id, item.default])).toEqual([
        [siteSpaces[0].id, true],
        [siteSpaces[1].id, false],
        [expect.any(String), false],
      ]);
      const second = await addSection(t, org, site.id, { title: 'Guides' });
      expect(second).toMatchObject({ default: false, path: 'guides-2' });
      expect(second.siteSpaces.map((item: any) => item.default)).toEqual([true]);
      expect(await t.dataSource.getRepository(SiteSpace).countBy({ siteId: site.id, sectionId: IsNull() })).toBe(0);
    });

    it.each([
      ['a title of 1 character', { title: 'a' }, /title/],
      ['a title of 129 characters', { title: 'a'.repeat(129) }, /title/],
      ['an icon that is not a name', { icon: 'Not An Icon' }, /icon/],
      ['no spaceId', { spaceId: undefined }, /spaceId/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const space = await createSpace(t, org);
      expectErrorEnvelope(
        await t.http
          .post(sections(org, site.id))
          .set(...org.admin.auth)
          .send({ spaceId: space.id, ...body }),
        400,
        field,
      );
    });
  });

  describe('GET …/sections', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(sections(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists oldest first with their site spaces, walking pages', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const site = await createSite(t, org);
      const created = [await addSection(t, org, site.id), await addSection(t, org, site.id), await addSection(t, org, site.id)];
      const res = await t.http
        .get(sections(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listSiteSections');
      expect(res.body.items.map((item: any) => [item.id, item.siteSpaces.length])).toEqual(created.map((item) => [item.id, 1]));
      expect(await walkList(t, sections(org, site.id), reader, { limit: 2 })).toEqual({ ids: created.map((item) => item.id), pages: 2, count: 3 });
      await expectLimitUpTo1000(t, sections(org, site.id), reader);
    });
  });

  describe('PATCH …/sections/{siteSectionId}', () => {
    itChecksAccess(() => t, {
      given: async (org) => {
        const site = await createSite(t, org);
        return { site, section: await addSection(t, org, site.id, { title: 'Before' }) };
      },
      request: (org, { site, section }) => t.http.patch(`${sections(org, site.id)}/${section.id}`).send({ title: 'After' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'read',
        status: 403,
        title: 'refuses a read member with 403 and changes nothing',
        after: async (_org, { site }) => expect((await sectionRows(site.id))[0].title).toBe('Before'),
      },
    });

    it('changes title, path, icon, description, condition and the default site space', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const section = await addSection(t, org, site.id);
      const other = await addSection(t, org, site.id);
      const extra = await t.http
        .post(`${sitePath(org, site.id)}/site-spaces`)
        .set(...org.admin.auth)
        .send({ spaceId: (await createSpace(t, org)).id, sectionId: section.id })
        .expect(201);
      await t.http
        .put(`${sitePath(org, site.id)}/adaptive-schema`)
        .set(...org.admin.auth)
        .send({
          jsonSchema: {
            type: 'object',
            properties: {
              unsigned: {
                type: 'object',
                description: 'Unsigned claims of the site visitor.',
                properties: { trial: { type: 'boolean', description: 'On trial' } },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
        })
        .expect(200);
      const path = `${sections(org, site.id)}/${section.id}`;
      const res = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({
          title: 'API',
          path: 'p'.repeat(100),
          icon: 'gear',
          description: 'd'.repeat(256),
          condition: '!visitor.claims.unsigned.trial',
          defaultSiteSpace: extra.body.id,
        })
        .expect(200);
      expectContract(res, 'updateSiteSectionById');
      expect(res.body).toMatchObject({
        title: 'API',
        path: 'p'.repeat(100),
        icon: 'gear',
        description: 'd'.repeat(256),
        condition: '!visitor.claims.unsigned.trial',
      });
      expect(res.body.siteSpaces.map((item: any) => [item.id, item.default])).toEqual([
        [section.siteSpaces[0].id, false],
        [extra.body.id, true],
      ]);
      const cleared = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ condition: null, icon: null, description: null })
        .expect(200);
      expect(cleared.body.condition).toBeUndefined();
      expect(cleared.body.icon).toBeUndefined();
      expect(cleared.body.description).toBeUndefined();
      for (const [body, status, pattern] of [
        [{ path: other.path }, 409, /path/],
        [{ path: 'p'.repeat(101) }, 400, /path/],
        [{ description: 'd'.repeat(257) }, 400, /description/],
        [{ condition: 'visitor.claims.trial &&' }, 400, /syntax error/],
        [{ condition: '(((' }, 400, /syntax error/],
        [{ condition: 'c'.repeat(1025) }, 400, /condition/],
        [{ defaultSiteSpace: other.siteSpaces[0].id }, 400, /defaultSiteSpace/],
        [{ title: null }, 400, /title/],
      ] as [object, number, RegExp][]) {
        expectErrorEnvelope(
          await t.http
            .patch(path)
            .set(...org.admin.auth)
            .send(body),
          status,
          pattern,
        );
      }
    });
  });

  describe('DELETE …/sections/{siteSectionId}', () => {
    itChecksAccess(() => t, {
      given: async (org) => {
        const site = await createSite(t, org);
        return { site, section: await addSection(t, org, site.id) };
      },
      request: (org, { site, section }) => t.http.delete(`${sections(org, site.id)}/${section.id}`),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses an editor with 403',
        after: async (_org, { site }) => expect(await sectionRows(site.id)).toHaveLength(1),
      },
    });

    it('deletes its site spaces; deleting the default makes the first remaining section in structure order the default', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const [a, b, c] = [await addSection(t, org, site.id), await addSection(t, org, site.id), await addSection(t, org, site.id)];
      // c comes first in the structure: it is the next default, not b.
      await t.http
        .patch(`${sitePath(org, site.id)}/structure/sort`)
        .set(...org.admin.auth)
        .send({ item: { type: 'site-section', id: c.id }, position: { before: { type: 'site-section', id: a.id } } })
        .expect(200);
      // The structure is read in the delete's transaction, on its one connection: one statement at a time.
      const overlapping = await overlappingQueries(() =>
        t.http
          .delete(`${sections(org, site.id)}/${a.id}`)
          .set(...org.admin.auth)
          .expect(204),
      );
      expect(overlapping).toEqual([]);
      expect(Object.fromEntries((await sectionRows(site.id)).map((row) => [row.id, row.isDefault]))).toEqual({ [b.id]: false, [c.id]: true });
      expect(await t.dataSource.getRepository(SiteSpace).countBy({ sectionId: a.id })).toBe(0);
      await t.http
        .delete(`${sections(org, site.id)}/${c.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect((await sectionRows(site.id)).map((row) => [row.id, row.isDefault])).toEqual([[b.id, true]]);
    });
  });

  describe('POST …/sections/{siteSectionId}/move', () => {
    itChecksAccess(() => t, {
      given: async (org) => {
        const site = await createSite(t, org);
        return { site, a: await addSection(t, org, site.id), b: await addSection(t, org, site.id) };
      },
      request: (org, { site, a, b }) =>
        t.http.post(`${sections(org, site.id)}/${a.id}/move`).send({ position: { after: { type: 'site-section', siteSection: b.id } } }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'read', status: 403, title: 'refuses a read member with 403' },
    });

    it('moves among the root items, or among the sections of its group', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const [a, b, c] = [await addSection(t, org, site.id), await addSection(t, org, site.id), await addSection(t, org, site.id)];
      const move = (id: string, body: object) =>
        t.http
          .post(`${sections(org, site.id)}/${id}/move`)
          .set(...org.admin.auth)
          .send(body);
      const res = await move(a.id, { position: { after: { type: 'site-section', siteSection: c.id } } }).expect(200);
      expectContract(res, 'moveSiteSection');
      expect(await tree(org, site.id)).toEqual([b.id, c.id, a.id]);
      const group = await t.http
        .post(groups(org, site.id))
        .set(...org.admin.auth)
        .send({ title: 'G', sections: [c.id, a.id] })
        .expect(201);
      expect(await tree(org, site.id)).toEqual([b.id, [group.body.id, [c.id, a.id]]]);
      await move(a.id, { position: { before: { type: 'site-section', siteSection: c.id } } }).expect(200);
      expect(await tree(org, site.id)).toEqual([b.id, [group.body.id, [a.id, c.id]]]);
      // b is not in the group: not a sibling of a.
      expectErrorEnvelope(await move(a.id, { position: { before: { type: 'site-section', siteSection: b.id } } }), 400, /position/);
    });
  });

  describe('section groups', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.post(groups(org, site.id)).send({ title: 'G' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses an editor creating a group with 403',
        after: async (_org, site) => expect(await t.dataSource.getRepository(SiteSectionGroup).countBy({ siteId: site.id })).toBe(0),
      },
    });

    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(groups(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('creates with sections, renames, adds and removes a section, moves, lists and deletes (sections stay, at its place)', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const site = await createSite(t, org);
      const [a, b, c, d] = [
        await addSection(t, org, site.id),
        await addSection(t, org, site.id),
        await addSection(t, org, site.id),
        await addSection(t, org, site.id),
      ];
      const created = await t.http
        .post(groups(org, site.id))
        .set(...org.admin.auth)
        .send({ title: 'Products', icon: 'box', sections: [c.id, b.id] })
        .expect(201);
      expectContract(created, 'addSectionGroupToSite');
      const g = created.body.id;
      expect(created.body).toMatchObject({ object: 'site-section-group', title: 'Products', icon: 'box' });
      expect(created.body.sections.map((s: any) => [s.id, s.sectionGroup])).toEqual([
        [c.id, g],
        [b.id, g],
      ]);
      expect(await tree(org, site.id)).toEqual([a.id, d.id, [g, [c.id, b.id]]]);

      const renamed = await t.http
        .patch(`${groups(org, site.id)}/${g}`)
        .set(...org.admin.auth)
        .send({ title: 'p'.repeat(100), icon: null })
        .expect(200);
      expectContract(renamed, 'updateSiteSectionGroupById');
      expect(renamed.body.icon).toBeUndefined();
      expectErrorEnvelope(
        await t.http
          .patch(`${groups(org, site.id)}/${g}`)
          .set(...org.admin.auth)
          .send({ title: 'p'.repeat(101) }),
        400,
        /title/,
      );

      const added = await t.http
        .post(`${groups(org, site.id)}/${g}/sections`)
        .set(...org.admin.auth)
        .send({ sectionId: a.id })
        .expect(200);
      expectPublicSchema(added.body, 'SiteSectionGroup');
      expect(await tree(org, site.id)).toEqual([d.id, [g, [c.id, b.id, a.id]]]);
      await t.http
        .delete(`${groups(org, site.id)}/${g}/sections/${c.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect(await tree(org, site.id)).toEqual([d.id, [g, [b.id, a.id]], c.id]);
      expectErrorEnvelope(await t.http.delete(`${groups(org, site.id)}/${g}/sections/${c.id}`).set(...org.admin.auth), 404);

      const moved = await t.http
        .post(`${groups(org, site.id)}/${g}/move`)
        .set(...org.admin.auth)
        .send({ position: { before: { type: 'site-section', id: d.id } } })
        .expect(200);
      expectContract(moved, 'moveSiteSectionGroup');
      expect(await tree(org, site.id)).toEqual([[g, [b.id, a.id]], d.id, c.id]);

      const listed = await t.http
        .get(groups(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expectContract(listed, 'listSiteSectionGroups');
      expect(listed.body.items.map((item: any) => [item.id, item.sections.map((s: any) => s.id)])).toEqual([[g, [b.id, a.id]]]);

      await t.http
        .delete(`${groups(org, site.id)}/${g}`)
        .set(...org.admin.auth)
        .expect(204);
      expect(await tree(org, site.id)).toEqual([b.id, a.id, d.id, c.id]);
      expectErrorEnvelope(await t.http.delete(`${groups(org, site.id)}/${g}`).set(...org.admin.auth), 404);
    });

    it('refuses unknown sections when creating (404, nothing written) and a missing title (400)', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      expectErrorEnvelope(
        await t.http
          .post(groups(org, site.id))
          .set(...org.admin.auth)
          .send({ title: 'G', sections: ['unknown'] }),
        404,
      );
      expectErrorEnvelope(
        await t.http
          .post(groups(org, site.id))
          .set(...org.admin.auth)
          .send({ sections: [] }),
        400,
        /title/,
      );
      expect(await t.dataSource.getRepository(SiteSectionGroup).countBy({ siteId: site.id })).toBe(0);
    });
  });

  describe('GET …/structure and PATCH …/structure/sort', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(`${sitePath(org, site.id)}/structure`),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    itChecksAccess(() => t, {
      given: async (org) => createSiteWithSpaces(t, org, 2),
      request: (org, { site, siteSpaces: [a, b] }) =>
        t.http
          .patch(`${sitePath(org, site.id)}/structure/sort`)
          .send({ item: { type: 'site-space', id: a.id }, position: { after: { type: 'site-space', id: b.id } } }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'read', status: 403, title: 'refuses a read member sorting with 403' },
    });

    it('is the root site spaces without sections, in order; sort moves any item in its level', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 3);
      const [a, b, c] = siteSpaces.map((item: any) => item.id);
      const res = await t.http
        .get(`${sitePath(org, site.id)}/structure`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getSiteStructure');
      expect(res.body.type).toBe('siteSpaces');
      const sort = (body: object) =>
        t.http
          .patch(`${sitePath(org, site.id)}/structure/sort`)
          .set(...org.admin.auth)
          .send(body);
      const sorted = await sort({ item: { type: 'site-space', id: c }, position: { before: { type: 'site-space', id: a } } }).expect(200);
      expectContract(sorted, 'sortSiteStructure');
      expect(sorted.body).toMatchObject({ object: 'site-space', id: c });
      expect(await tree(org, site.id)).toEqual([c, a, b]);
      await sort({ item: { type: 'site-space', id: c }, position: {} }).expect(200);
      expect(await tree(org, site.id)).toEqual([a, b, c]);
      expectErrorEnvelope(await sort({ item: { type: 'site-space', id: c }, position: { after: { type: 'site-section', id: a } } }), 400, /position/);
      expectErrorEnvelope(await sort({ item: { type: 'site-space', id: 'unknown' }, position: {} }), 404);
      expectErrorEnvelope(await sort({ item: { type: 'site-space', id: c } }), 400, /position/);
      expectErrorEnvelope(await sort({ item: { type: 'page', id: c }, position: {} }), 400, /type/);
    });

    it('is the sections and groups when the site has sections; sort moves a group among root items', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const [a, b] = [await addSection(t, org, site.id), await addSection(t, org, site.id)];
      const group = await t.http
        .post(groups(org, site.id))
        .set(...org.admin.auth)
        .send({ title: 'G', sections: [b.id] })
        .expect(201);
      const sorted = await t.http
        .patch(`${sitePath(org, site.id)}/structure/sort`)
        .set(...org.admin.auth)
        .send({ item: { type: 'site-section-group', id: group.body.id }, position: { before: { type: 'site-section', id: a.id } } })
        .expect(200);
      expectContract(sorted, 'sortSiteStructure');
      const res = await t.http
        .get(`${sitePath(org, site.id)}/structure`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.type).toBe('sections');
      expect(await tree(org, site.id)).toEqual([[group.body.id, [b.id]], a.id]);
    });
  });
});

describe('site spaces', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const siteSpaces = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/site-spaces`;
  const siteSpace = (org: OrgFixture, siteId: string, id: string) => `${siteSpaces(org, siteId)}/${id}`;
  const rows = (siteId: string) => t.dataSource.getRepository(SiteSpace).find({ where: { siteId }, order: { position: 'ASC', id: 'ASC' } });

  describe('POST …/site-spaces', () => {
    itChecksAccess(() => t, {
      given: async (org) => ({ site: await createSite(t, org), space: await createSpace(t, org) }),
      request: (org, { site, space }) => t.http.post(siteSpaces(org, site.id)).send({ spaceId: space.id }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses a member below create with 403 and adds nothing',
        after: async (_org, { site }) => expect(await rows(site.id)).toEqual([]),
      },
    });

    it('adds at the root of a site without sections: the first is the default, paths stay unique', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const space = await createSpace(t, org, { title: 'User Guide' });
      const first = await t.http
        .post(siteSpaces(org, site.id))
        .set(...org.admin.auth)
        .send({ spaceId: space.id })
        .expect(201);
      expectContract(first, 'addSpaceToSite');
      expect(first.body).toMatchObject({ object: 'site-space', path: 'user-guide', default: true, title: 'User Guide', space: { id: space.id } });
      expect(first.body.section).toBeUndefined();
      const second = await t.http
        .post(siteSpaces(org, site.id))
        .set(...org.admin.auth)
        .send({ spaceId: space.id })
        .expect(201);
      expect(second.body).toMatchObject({ path: 'user-guide-2', default: false });
    });

    it('adds to the default section, or to the section named', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const a = await addSection(t, org, site.id);
      const b = await addSection(t, org, site.id);
      const space = await createSpace(t, org);
      const toDefault = await t.http
        .post(siteSpaces(org, site.id))
        .set(...org.admin.auth)
        .send({ spaceId: space.id })
        .expect(201);
      expect(toDefault.body).toMatchObject({ section: a.id, default: false });
      const toB = await t.http
        .post(siteSpaces(org, site.id))
        .set(...org.admin.auth)
        .send({ spaceId: space.id, sectionId: b.id })
        .expect(201);
      expect(toB.body).toMatchObject({ section: b.id, default: false });
      expectErrorEnvelope(
        await t.http
          .post(siteSpaces(org, site.id))
          .set(...org.admin.auth)
          .send({ spaceId: space.id, sectionId: 'unknown' }),
        404,
      );
    });

    it('requires that the caller may view the space: 404 for a space they cannot see, even as a creator', async () => {
      const org = await createOrganization(t);
      const creator = await addMember(t, org, 'create');
      const site = await createSite(t, org);
      const other = await createOrganization(t);
      const foreign = await createSpace(t, other);
      expectErrorEnvelope(
        await t.http
          .post(siteSpaces(org, site.id))
          .set(...creator.auth)
          .send({ spaceId: foreign.id }),
        404,
      );
      // A space the caller can view, but of another organization (they administer both), is refused too.
      const theirs = await createSpace(t, await createOrganization(t, { admin: org.admin }));
      expectErrorEnvelope(
        await t.http
          .post(siteSpaces(org, site.id))
          .set(...org.admin.auth)
          .send({ spaceId: theirs.id }),
        404,
      );
      const own = await createSpace(t, org);
      await t.http
        .post(siteSpaces(org, site.id))
        .set(...creator.auth)
        .send({ spaceId: own.id })
        .expect(201);
    });

    it.each([
      ['no spaceId', {}, /spaceId/],
      ['a null spaceId', { spaceId: null }, /spaceId/],
      ['a null sectionId', { spaceId: 'x', sectionId: null }, /sectionId/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      expectErrorEnvelope(
        await t.http
          .post(siteSpaces(org, site.id))
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  it('hides the site spaces of a space deleted or transferred to another organization', async () => {
    const org = await createOrganization(t);
    const { site, spaceIds, siteSpaces: created } = await createSiteWithSpaces(t, org, 3);
    await t.http
      .delete(`/v1/spaces/${spaceIds[0]}`)
      .set(...org.admin.auth)
      .expect(205);
    const elsewhere = await createOrganization(t, { admin: org.admin });
    await t.http
      .post(`/v1/spaces/${spaceIds[1]}/transfer`)
      .set(...org.admin.auth)
      .send({ organization: elsewhere.id })
      .expect(200);
    const res = await t.http
      .get(siteSpaces(org, site.id))
      .set(...org.admin.auth)
      .expect(200);
    expect(res.body.items.map((item: any) => item.id)).toEqual([created[2].id]);
    expect(
      (
        await t.http
          .get(sitePath(org, site.id))
          .set(...org.admin.auth)
          .expect(200)
      ).body.siteSpaces,
    ).toBe(1);
  });

  describe('GET …/site-spaces', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(siteSpaces(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists oldest first, filters by default, walks pages', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 3);
      const all = await t.http
        .get(siteSpaces(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expectContract(all, 'listSiteSpaces');
      expect(all.body.items.map((item: any) => item.id)).toEqual(created.map((item: any) => item.id));
      const only = await t.http
        .get(siteSpaces(org, site.id))
        .query({ default: 'true' })
        .set(...reader.auth)
        .expect(200);
      expect(only.body.items.map((item: any) => item.id)).toEqual([created[0].id]);
      const others = await t.http
        .get(siteSpaces(org, site.id))
        .query({ default: 'false' })
        .set(...reader.auth)
        .expect(200);
      expect(others.body.items.map((item: any) => item.id)).toEqual([created[1].id, created[2].id]);
      expect(await walkList(t, siteSpaces(org, site.id), reader, { limit: 2 })).toEqual({ ids: created.map((item: any) => item.id), pages: 2, count: 3 });
      await expectLimitUpTo1000(t, siteSpaces(org, site.id), reader);
    });
  });

  describe('PATCH …/site-spaces/{siteSpaceId}', () => {
    itChecksAccess(() => t, {
      given: async (org) => createSiteWithSpaces(t, org, 1),
      request: (org, { site, siteSpaces: [first] }) => t.http.patch(siteSpace(org, site.id, first.id)).send({ path: 'changed' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'read',
        status: 403,
        title: 'refuses a read member with 403 and changes nothing',
        after: async (_org, { site }) => expect((await rows(site.id))[0].path).not.toBe('changed'),
      },
    });

    it('changes the path (1 and 100 characters), unique within its level', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 2);
      for (const path of ['a', 'p'.repeat(100)]) {
        const res = await t.http
          .patch(siteSpace(org, site.id, created[0].id))
          .set(...org.admin.auth)
          .send({ path })
          .expect(200);
        expectContract(res, 'updateSiteSpaceById');
        expect(res.body.path).toBe(path);
      }
      for (const path of ['', 'p'.repeat(101)]) {
        expectErrorEnvelope(
          await t.http
            .patch(siteSpace(org, site.id, created[0].id))
            .set(...org.admin.auth)
            .send({ path }),
          400,
          /path/,
        );
      }
      expectErrorEnvelope(
        await t.http
          .patch(siteSpace(org, site.id, created[0].id))
          .set(...org.admin.auth)
          .send({ path: created[1].path }),
        409,
        /path/,
      );
      // The same path in another section is fine.
      const section = await addSection(t, org, site.id);
      await t.http
        .patch(siteSpace(org, site.id, section.siteSpaces[section.siteSpaces.length - 1].id))
        .set(...org.admin.auth)
        .send({ path: 'elsewhere' })
        .expect(200);
    });

    it('sets a condition (1024 characters), refuses 1025 and a syntax error, removes it with null, leaves it when absent', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 1);
      await t.http
        .put(`${sitePath(org, site.id)}/adaptive-schema`)
        .set(...org.admin.auth)
        .send({ jsonSchema: { type: 'object', properties: { isBeta: { type: 'boolean', description: 'Beta user' } }, additionalProperties: false } })
        .expect(200);
      const path = siteSpace(org, site.id, created[0].id);
      const base = 'visitor.claims.isBeta';
      const long = `${base} === true${' '.repeat(1024 - base.length - ' === true'.length)}`;
      expect(long).toHaveLength(1024);
      const set = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ condition: long })
        .expect(200);
      expect(set.body.condition).toBe(long);
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ condition: `${long} ` }),
        400,
        /condition/,
      );
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ condition: '' }),
        400,
        /condition/,
      );
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ condition: 'visitor.claims.isBeta &&' }),
        400,
        /condition: syntax error/,
      );
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ condition: 'visitor.claims.isBeta visitor.claims.isAdmin' }),
        400,
        /condition: syntax error/,
      );
      const unchanged = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ path: 'kept' })
        .expect(200);
      expect(unchanged.body.condition).toBe(long);
      const removed = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ condition: null })
        .expect(200);
      expect(removed.body.condition).toBeUndefined();
    });

    it('points the site space at another space the caller can view', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 1);
      const other = await createSpace(t, org);
      const res = await t.http
        .patch(siteSpace(org, site.id, created[0].id))
        .set(...org.admin.auth)
        .send({ spaceId: other.id })
        .expect(200);
      expect(res.body.space.id).toBe(other.id);
      expectErrorEnvelope(
        await t.http
          .patch(siteSpace(org, site.id, created[0].id))
          .set(...org.admin.auth)
          .send({ spaceId: 'unknown' }),
        404,
      );
      expectErrorEnvelope(
        await t.http
          .patch(siteSpace(org, site.id, 'unknown'))
          .set(...org.admin.auth)
          .send({ path: 'x' }),
        404,
      );
    });
  });

  describe('DELETE …/site-spaces/{siteSpaceId}', () => {
    itChecksAccess(() => t, {
      given: async (org) => createSiteWithSpaces(t, org, 1),
      request: (org, { site, siteSpaces: [first] }) => t.http.delete(siteSpace(org, site.id, first.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'edit', status: 403, title: 'refuses an editor with 403', after: async (_org, { site }) => expect(await rows(site.id)).toHaveLength(1) },
    });

    it('answers 205; deleting the default makes the next site space of the level the default', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 3);
      const res = await t.http
        .delete(siteSpace(org, site.id, created[0].id))
        .set(...org.admin.auth)
        .expect(205);
      expect(res.text).toBe('');
      expect((await rows(site.id)).map((row) => [row.id, row.isDefault])).toEqual([
        [created[1].id, true],
        [created[2].id, false],
      ]);
      await t.http
        .delete(siteSpace(org, site.id, created[2].id))
        .set(...org.admin.auth)
        .expect(205);
      expect((await rows(site.id)).map((row) => [row.id, row.isDefault])).toEqual([[created[1].id, true]]);
      expectErrorEnvelope(await t.http.delete(siteSpace(org, site.id, created[2].id)).set(...org.admin.auth), 404);
    });
  });

  describe('POST …/site-spaces/{siteSpaceId}/move (deprecated)', () => {
    itChecksAccess(() => t, {
      given: async (org) => createSiteWithSpaces(t, org, 2),
      request: (org, { site, siteSpaces: [first, second] }) =>
        t.http.post(`${siteSpace(org, site.id, first.id)}/move`).send({ position: { after: { type: 'site-space', siteSpace: second.id } } }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'read', status: 403, title: 'refuses a read member with 403' },
    });

    it('moves before or after a sibling, or to the end; a pointer outside the level is 400', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 3);
      const [a, b, c] = created.map((item: any) => item.id);
      const move = (id: string, body: object) =>
        t.http
          .post(`${siteSpace(org, site.id, id)}/move`)
          .set(...org.admin.auth)
          .send(body);
      const order = async () => (await rows(site.id)).map((row) => row.id);
      const res = await move(a, { position: { after: { type: 'site-space', siteSpace: c } } }).expect(200);
      expectContract(res, 'moveSiteSpace');
      expect(await order()).toEqual([b, c, a]);
      await move(a, { position: { before: { type: 'site-space', siteSpace: b } } }).expect(200);
      expect(await order()).toEqual([a, b, c]);
      await move(a, {}).expect(200);
      expect(await order()).toEqual([b, c, a]);
      expectErrorEnvelope(await move(a, { position: { before: { type: 'site-space', siteSpace: a } } }), 400, /position/);
      expectErrorEnvelope(await move(a, { position: { before: { type: 'site-space', siteSpace: 'unknown' } } }), 400, /position/);
      expectErrorEnvelope(await move(a, { position: { before: { type: 'site-section', siteSpace: b } } }), 400, /type/);
      expect(await order()).toEqual([b, c, a]);
    });
  });

  describe('POST …/site-spaces/{siteSpaceId}/duplicate', () => {
    itChecksAccess(() => t, {
      given: async (org) => createSiteWithSpaces(t, org, 1),
      request: (org, { site, siteSpaces: [first] }) => t.http.post(`${siteSpace(org, site.id, first.id)}/duplicate`),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'read',
        status: 403,
        title: 'refuses a read member with 403',
        after: async (_org, { site }) => expect(await rows(site.id)).toHaveLength(1),
      },
    });

    it('shows the same space again at the end of the level, on a free path, not the default', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces: created } = await createSiteWithSpaces(t, org, 1);
      const res = await t.http
        .post(`${siteSpace(org, site.id, created[0].id)}/duplicate`)
        .set(...org.admin.auth)
        .expect(201);
      expectContract(res, 'duplicateSiteSpace');
      expect(res.body).toMatchObject({ space: { id: created[0].space.id }, path: `${created[0].path}-2`, default: false });
      expect((await rows(site.id)).map((row) => row.id)).toEqual([created[0].id, res.body.id]);
    });
  });
});

const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    isBetaUser: { type: 'boolean', description: 'The visitor is in the beta programme' },
    unsigned: {
      type: 'object',
      description: 'Unsigned claims of the site visitor.',
      properties: { prefersDark: { type: 'boolean', description: 'The visitor prefers dark pages' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

describe('site adaptive schema, share links and published profile', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const schemaPath = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/adaptive-schema`;
  const links = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/share-links`;
  const storedSchema = async (siteId: string) => (await t.dataSource.getRepository(Site).findOneByOrFail({ id: siteId })).adaptiveSchema;

  describe('adaptive schema', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.put(schemaPath(org, site.id)).send({ jsonSchema: SCHEMA }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'create',
        status: 403,
        after: async (org) => expect((await t.dataSource.getRepository(Site).findOneByOrFail({ organizationId: org.id })).adaptiveSchema).toBeNull(),
      },
    });

    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(schemaPath(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('starts empty, stores a valid schema, and lists one template condition per claim', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const site = await createSite(t, org);
      const empty = await t.http
        .get(schemaPath(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expectContract(empty, 'getSiteAdaptiveSchema');
      expect(empty.body.jsonSchema.properties).toEqual({});
      const put = await t.http
        .put(schemaPath(org, site.id))
        .set(...org.admin.auth)
        .send({ jsonSchema: SCHEMA })
        .expect(200);
      expectContract(put, 'updateSiteAdaptiveSchema');
      expect(put.body).toEqual({ object: 'site-adaptive-schema', jsonSchema: SCHEMA, updatedAt: expect.any(String) });
      const got = await t.http
        .get(schemaPath(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expect(got.body).toEqual(put.body);
      const templates = await t.http
        .get(`${schemaPath(org, site.id)}/template-conditions`)
        .set(...reader.auth)
        .expect(200);
      expectContract(templates, 'listSiteAdaptiveTemplateConditions');
      expect(templates.body).toEqual({
        items: [
          { description: 'The visitor is in the beta programme', condition: 'visitor.claims.isBetaUser === true' },
          { description: 'The visitor prefers dark pages', condition: 'visitor.claims.unsigned.prefersDark === true' },
        ],
      });
    });

    it.each([
      ['a claim that is not a boolean', { ...SCHEMA, properties: { plan: { type: 'string', description: 'Plan' } } }, /jsonSchema\/properties\/plan/],
      ['a claim without description', { ...SCHEMA, properties: { isBeta: { type: 'boolean' } } }, /description/],
      ['additional properties allowed', { ...SCHEMA, additionalProperties: true }, /additionalProperties/],
      ['a type other than object', { ...SCHEMA, type: 'array' }, /type/],
      ['a draft-07 violation', { ...SCHEMA, properties: { isBeta: { type: 'boolean', description: 'x', enum: 'not-an-array' } } }, /draft-07/],
      ['another $schema', { ...SCHEMA, $schema: 'https://json-schema.org/draft/2020-12/schema' }, /\$schema/],
      [
        'unsigned claims of another type',
        { ...SCHEMA, properties: { unsigned: { ...SCHEMA.properties.unsigned, properties: { n: { type: 'number', description: 'n' } } } } },
        /unsigned/,
      ],
    ])('refuses %s with 400 naming the problem, storing nothing', async (_case, jsonSchema, pattern) => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      expectErrorEnvelope(
        await t.http
          .put(schemaPath(org, site.id))
          .set(...org.admin.auth)
          .send({ jsonSchema }),
        400,
        pattern,
      );
      expect(await storedSchema(site.id)).toBeNull();
    });

    it('refuses a missing or non-object jsonSchema with 400', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      for (const body of [{}, { jsonSchema: 'x' }, { jsonSchema: null }]) {
        expectErrorEnvelope(
          await t.http
            .put(schemaPath(org, site.id))
            .set(...org.admin.auth)
            .send(body),
          400,
          /jsonSchema/,
        );
      }
    });
  });

  describe('share links', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.post(links(org, site.id)).send({ name: 'Partners' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'create',
        status: 403,
        after: async (_org, site) => expect(await t.dataSource.getRepository(SiteShareLink).countBy({ siteId: site.id })).toBe(0),
      },
    });

    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(links(org, site.id)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403, title: 'does not show keys to a member who is not an admin (403)' },
    });

    it('creates links with distinct secret keys, renames, deactivates, lists (search, pages) and deletes', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const created = await t.http
        .post(links(org, site.id))
        .set(...org.admin.auth)
        .send({ name: 'Partners' })
        .expect(201);
      expectContract(created, 'createSiteShareLink');
      expect(created.body).toMatchObject({ object: 'share-link', name: 'Partners', active: true, key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(created.body.urls.published).toBe(`http://app.quire.test/sites/${site.id}?share=${created.body.key}`);
      const second = await t.http
        .post(links(org, site.id))
        .set(...org.admin.auth)
        .send({ name: 'n'.repeat(50) })
        .expect(201);
      expect(second.body.key).not.toBe(created.body.key);
      expectErrorEnvelope(
        await t.http
          .post(links(org, site.id))
          .set(...org.admin.auth)
          .send({ name: 'n'.repeat(51) }),
        400,
        /name/,
      );
      const third = await t.http
        .post(links(org, site.id))
        .set(...org.admin.auth)
        .send({ name: 'Press' })
        .expect(201);

      const updated = await t.http
        .patch(`${links(org, site.id)}/${created.body.id}`)
        .set(...org.admin.auth)
        .send({ name: 'Partners 2', active: false })
        .expect(200);
      expectContract(updated, 'updateSiteShareLinkById');
      expect(updated.body).toMatchObject({ name: 'Partners 2', active: false, key: created.body.key });

      const listed = await t.http
        .get(links(org, site.id))
        .query({ search: 'part' })
        .set(...org.admin.auth)
        .expect(200);
      expectContract(listed, 'listSiteShareLinks');
      expect(listed.body.items.map((link: any) => link.id)).toEqual([created.body.id]);
      expect(await walkList(t, links(org, site.id), org.admin, { limit: 2 })).toEqual({
        ids: [created.body.id, second.body.id, third.body.id],
        pages: 2,
        count: 3,
      });
      await expectLimitUpTo1000(t, links(org, site.id), org.admin);

      await t.http
        .delete(`${links(org, site.id)}/${created.body.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expectErrorEnvelope(await t.http.delete(`${links(org, site.id)}/${created.body.id}`).set(...org.admin.auth), 404);
      expectErrorEnvelope(
        await t.http
          .patch(`${links(org, site.id)}/${created.body.id}`)
          .set(...org.admin.auth)
          .send({ active: true }),
        404,
      );
    });
  });

  describe('customization', () => {
    const customization = (org: OrgFixture, siteId: string) => `${sitePath(org, siteId)}/customization`;
    const spaceCustomization = (org: OrgFixture, siteId: string, siteSpaceId: string) => `${sitePath(org, siteId)}/site-spaces/${siteSpaceId}/customization`;

    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.put(customization(org, site.id)).send({ title: 'x' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'create',
        status: 403,
        after: async (org) => expect((await t.dataSource.getRepository(Site).findOneByOrFail({ organizationId: org.id })).customization).toBeNull(),
      },
    });

    it('starts from the defaults, replaces them with valid settings, refuses invalid ones naming the field', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const site = await createSite(t, org);
      const initial = await t.http
        .get(customization(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expectContract(initial, 'getSiteCustomizationById');
      const changed = { ...initial.body, title: 'Branded', styling: { ...initial.body.styling, primaryColor: { light: '#ff0000', dark: '#00ff00' } } };
      const put = await t.http
        .put(customization(org, site.id))
        .set(...org.admin.auth)
        .send(changed)
        .expect(200);
      expectContract(put, 'updateSiteCustomizationById');
      expect(put.body.styling.primaryColor).toEqual({ light: '#ff0000', dark: '#00ff00' });
      const { styling: _styling, ...incomplete } = changed;
      for (const [body, pattern] of [
        [{ ...changed, styling: { ...changed.styling, primaryColor: { light: 'red', dark: '#000' } } }, /styling.primaryColor.light/],
        [{ ...changed, themes: { default: 'sepia', toggeable: true } }, /themes.default/],
        [{ ...changed, title: null }, /title: must not be null/],
        [incomplete, /styling/],
        [{ ...changed, title: 'x' }, /title/],
      ] as [object, RegExp][]) {
        expectErrorEnvelope(
          await t.http
            .put(customization(org, site.id))
            .set(...org.admin.auth)
            .send(body),
          400,
          pattern,
        );
      }
      const after = await t.http
        .get(customization(org, site.id))
        .set(...reader.auth)
        .expect(200);
      expect(after.body).toEqual(put.body);
    });

    it('overrides members per site space (null resets one), shows them in the published profile, and drops them (205)', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 2);
      const path = spaceCustomization(org, site.id, siteSpaces[0].id);
      const overridden = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ title: 'Variant', styling: { corners: 'straight' } })
        .expect(200);
      expectContract(overridden, 'overrideSiteSpaceCustomizationById');
      expect(overridden.body).toMatchObject({ title: 'Variant', styling: { corners: 'straight', theme: 'clean' } });
      const got = await t.http
        .get(path)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(got, 'getSiteSpaceCustomizationById');
      expect(got.body).toEqual(overridden.body);
      expectErrorEnvelope(
        await t.http
          .patch(path)
          .set(...org.admin.auth)
          .send({ styling: { corners: 'wavy' } }),
        400,
        /styling.corners/,
      );
      const profile = await t.http
        .get(`${sitePath(org, site.id)}/published`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(profile, 'getPublishedContentSite');
      expect(profile.body.customizations.siteSpaces[siteSpaces[0].id]).toMatchObject({ title: 'Variant', styling: { corners: 'straight' } });
      expect(profile.body.customizations.siteSpaces[siteSpaces[1].id]).toEqual(profile.body.customizations.site);

      const reset = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ title: null })
        .expect(200);
      expect(reset.body).toMatchObject({ title: site.title, styling: { corners: 'straight' } });
      await t.http
        .delete(path)
        .set(...org.admin.auth)
        .expect(205);
      expect(
        (
          await t.http
            .get(path)
            .set(...org.admin.auth)
            .expect(200)
        ).body.styling.corners,
      ).toBe('rounded');
      expectErrorEnvelope(await t.http.get(spaceCustomization(org, site.id, 'unknown')).set(...org.admin.auth), 404);
    });
  });

  describe('GET …/published', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, site) => t.http.get(`${sitePath(org, site.id)}/published`),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('returns the site, its site spaces, default customizations and no scripts', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 2);
      await t.http
        .post(`${sitePath(org, site.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);
      const res = await t.http
        .get(`${sitePath(org, site.id)}/published`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getPublishedContentSite');
      expect(res.body).toMatchObject({ object: 'published-content-site', site: { id: site.id, published: true }, scripts: [] });
      expect(res.body.structure.type).toBe('siteSpaces');
      expect(res.body.structure.structure.map((item: any) => [item.id, item.urls.published])).toEqual([
        [siteSpaces[0].id, `http://app.quire.test/sites/${site.id}`],
        [siteSpaces[1].id, `http://app.quire.test/sites/${site.id}/${siteSpaces[1].path}`],
      ]);
      expectPublicSchema(res.body.customizations.site, 'SiteCustomizationSettings');
      expect(res.body.customizations.site.title).toBe(site.title);
      expect(Object.keys(res.body.customizations.siteSpaces)).toEqual(siteSpaces.map((item: any) => item.id));
    });

    it('organizes by sections when the site has them', async () => {
      const org = await createOrganization(t);
      const site = await createSite(t, org);
      const section = await addSection(t, org, site.id, { title: 'Guides' });
      const res = await t.http
        .get(`${sitePath(org, site.id)}/published`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getPublishedContentSite');
      expect(res.body.structure.type).toBe('sections');
      expect(res.body.structure.structure.map((item: any) => item.id)).toEqual([section.id]);
      // Not published: no published URLs.
      expect(res.body.structure.structure[0].urls.published).toBeUndefined();
    });

    it('resolves published URLs of a share-link site only with an active key of that site', async () => {
      const org = await createOrganization(t);
      const { site, siteSpaces } = await createSiteWithSpaces(t, org, 1);
      await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ visibility: 'share-link' })
        .expect(200);
      await t.http
        .post(`${sitePath(org, site.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);
      const link = (
        await t.http
          .post(links(org, site.id))
          .set(...org.admin.auth)
          .send({ name: 'Partners' })
          .expect(201)
      ).body;
      const other = await createSite(t, org);
      const otherLink = (
        await t.http
          .post(links(org, other.id))
          .set(...org.admin.auth)
          .send({ name: 'Elsewhere' })
          .expect(201)
      ).body;
      const published = async (query: Record<string, string>) => {
        const res = await t.http
          .get(`${sitePath(org, site.id)}/published`)
          .query(query)
          .set(...org.admin.auth)
          .expect(200);
        expectContract(res, 'getPublishedContentSite');
        return res.body.structure.structure[0].urls.published;
      };
      expect(await published({})).toBeUndefined();
      expect(await published({ shareKey: 'wrong' })).toBeUndefined();
      expect(await published({ shareKey: otherLink.key })).toBeUndefined();
      expect(await published({ shareKey: link.key })).toBe(`http://app.quire.test/sites/${site.id}?share=${link.key}`);

      const listed = await t.http
        .get(`${sitePath(org, site.id)}/site-spaces`)
        .query({ shareKey: link.key })
        .set(...org.admin.auth)
        .expect(200);
      expect(listed.body.items[0]).toMatchObject({ id: siteSpaces[0].id, urls: { published: `http://app.quire.test/sites/${site.id}?share=${link.key}` } });
      const sections = await t.http
        .get(`${sitePath(org, site.id)}/structure`)
        .query({ shareKey: 'wrong' })
        .set(...org.admin.auth)
        .expect(200);
      expect(sections.body.structure[0].urls).toEqual({});

      await t.http
        .patch(`${links(org, site.id)}/${link.id}`)
        .set(...org.admin.auth)
        .send({ active: false })
        .expect(200);
      expect(await published({ shareKey: link.key })).toBeUndefined();
    });
  });
});

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

/**
 * `searchSiteContent` (issue 26, point 7): scopes, grouping by space, excerpts that show the match,
 * conditions that hide sections and site spaces, unpublished sites, pages of results.
 */
describe('site search', () => {
  let t: TestApp;
  let org: OrgFixture;
  let site: { id: string };
  /** Spaces: guides (default of section Docs), recipes (a variant of Docs), beta (default of section Beta, conditional). */
  const spaces: Record<string, string> = {};
  const siteSpaces: Record<string, string> = {};
  const LONG = `${'Filler words about nothing in particular. '.repeat(40)}The narwhal appears only here, deep in the text. ${'More filler. '.repeat(30)}`;

  const write = (spaceId: string, pages: DraftPage[]) =>
    t.app
      .get(SpaceUnitOfWork)
      .run(spaceId, org.admin.user, 'edit', ({ commitRevision }) =>
        commitRevision((base, em) => t.app.get(RevisionWriter).write({ spaceId, parents: [base], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );
  const page = (i: number, title: string, markdown: string) =>
    documentPage({ pageId: `p${i}`, parentId: null, position: i, title, slug: `page-${i}`, markdown });
  const search = (body: object, query = '', actor = org.admin) =>
    t.http
      .post(`${sitePath(org, site.id)}/search${query}`)
      .set(...actor.auth)
      .send(body);
  const spacesOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((item) => item.id);

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    for (const name of ['guides', 'recipes', 'beta']) spaces[name] = (await createSpace(t, org, { title: name[0].toUpperCase() + name.slice(1) })).id;
    await write(spaces.guides, [
      page(0, 'Quokka basics', 'Everything about the quokka.\n\n## Feeding\n\nA quokka eats leaves.'),
      page(1, 'Setup', `Install it.\n\n## Deep\n\n${LONG}`),
      page(2, 'Other', 'The quokka appears in passing.'),
    ]);
    await write(spaces.recipes, [page(0, 'Quokka stew', 'Never cook a quokka.'), page(1, 'Salad', 'Leaves only.')]);
    await write(spaces.beta, [page(0, 'Beta quokka', 'The quokka beta program.')]);
    site = await createSite(t, org);
    const admin = (method: 'put' | 'post' | 'patch', path: string, body: object) =>
      t.http[method](`${sitePath(org, site.id)}${path}`)
        .set(...org.admin.auth)
        .send(body);
    await admin('put', '/adaptive-schema', {
      jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta tester' } }, additionalProperties: false },
    }).expect(200);
    const docs = await addSection(t, org, site.id, { spaceId: spaces.guides, title: 'Docs' });
    const beta = await addSection(t, org, site.id, { spaceId: spaces.beta, title: 'Beta' });
    await admin('post', '/site-spaces', { spaceId: spaces.recipes, sectionId: docs.id }).expect(201);
    await admin('patch', `/sections/${beta.id}`, { condition: 'visitor.claims.beta === true' }).expect(200);
    await admin('post', '/publish', {}).expect(200);
    const listed = await t.http
      .get(`${sitePath(org, site.id)}/site-spaces?limit=100`)
      .set(...org.admin.auth)
      .expect(200);
    for (const row of listed.body.items) {
      const name = Object.keys(spaces).find((key) => spaces[key] === row.space.id)!;
      siteSpaces[name] = row.id;
    }
  });
  afterAll(() => t.close());

  it('searches every site space with mode all: results grouped by space, best first, ranks across the site, sections with their match', async () => {
    const res = await search({ query: 'quokka', scope: { mode: 'all' } }).expect(200);
    expectContract(res, 'searchSiteContent');
    expect(new Set(spacesOf(res))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const ranked = res.body.items.flatMap((item: { id: string; pages: { rank: number; score: number; title: string }[] }) => item.pages);
    expect(ranked.map((hit: { rank: number }) => hit.rank).sort((a: number, b: number) => a - b)).toEqual([1, 2, 3, 4]);
    expect(res.body.count).toBe(4);
    // A group's score is its best page's; groups come in the order of their best page.
    for (const group of res.body.items) expect(group.score).toBe(Math.max(...group.pages.map((hit: { score: number }) => hit.score)));
    expect(res.body.items.map((group: { pages: { rank: number }[] }) => group.pages[0].rank)).toEqual(
      [...res.body.items.map((group: { pages: { rank: number }[] }) => group.pages[0].rank)].sort((a, b) => a - b),
    );
    const basics = ranked.find((hit: { title: string }) => hit.title === 'Quokka basics');
    expect(basics.sections.map((section: { title: string }) => section.title)).toContain('Feeding');
    expect(res.body.items.find((group: { id: string }) => group.id === spaces.guides).title).toBe('Guides');
  });

  it('shows the part of a long section where the words are', async () => {
    const res = await search({ query: 'narwhal', scope: { mode: 'all' } }).expect(200);
    expectContract(res, 'searchSiteContent');
    const [hit] = res.body.items[0].pages;
    const body: string = hit.sections[0].body;
    expect(body).toMatch(/narwhal/);
    expect(body.startsWith('…')).toBe(true);
    expect(body.length).toBeLessThan(400);
  });

  it('searches the default of each section with scope default, adds the current site space, and restricts to it or to the others', async () => {
    const defaults = await search({ query: 'quokka', scope: { mode: 'default' } }).expect(200);
    expect(new Set(spacesOf(defaults))).toEqual(new Set([spaces.guides, spaces.beta]));
    const withCurrent = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.recipes } }).expect(200);
    expect(new Set(spacesOf(withCurrent))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const only = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.recipes, restrictTo: 'currentSiteSpace' } }).expect(
      200,
    );
    expectContract(only, 'searchSiteContent');
    expect(spacesOf(only)).toEqual([spaces.recipes]);
    const others = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.guides, restrictTo: 'otherSiteSpaces' } }).expect(
      200,
    );
    expect(spacesOf(others)).toEqual([spaces.beta]);
    const specific = await search({ query: 'quokka', scope: { mode: 'specific', siteSpaceIds: [siteSpaces.recipes] } }).expect(200);
    expect(spacesOf(specific)).toEqual([spaces.recipes]);
    // The deprecated shapes the renderer still sends.
    const current = await search({ query: 'quokka', mode: 'current', siteSpaceId: siteSpaces.recipes }).expect(200);
    expect(new Set(spacesOf(current))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    expect(spacesOf(await search({ query: 'quokka', mode: 'specific', siteSpaceIds: [siteSpaces.beta] }).expect(200))).toEqual([spaces.beta]);
  });

  it('does not search sections or site spaces whose condition is false for the visitor', async () => {
    const service = t.app.get(SiteSearchService);
    const caller = await membershipOf(t, org, org.admin);
    const spacesFor = async (claims: Record<string, unknown>) =>
      new Set((await service.search(caller, site.id, { query: 'quokka', scope: { mode: 'all' } }, { limit: 50 }, claims)).hits.map((hit) => hit.place.spaceId));
    expect(await spacesFor({})).toEqual(new Set([spaces.guides, spaces.recipes]));
    expect(await spacesFor({ beta: false })).toEqual(new Set([spaces.guides, spaces.recipes]));
    expect(await spacesFor({ beta: true })).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    // Named explicitly, a hidden site space is still not searched.
    const named = await service.search(caller, site.id, { query: 'quokka', scope: { mode: 'specific', siteSpaceIds: [siteSpaces.beta] } }, { limit: 50 }, {});
    expect(named.hits).toEqual([]);
  });

  it('walks every hit once, page by page, in rank order', async () => {
    const seen: { id: string; rank: number; score: number }[] = [];
    let page: string | undefined;
    do {
      const res = await search({ query: 'quokka', scope: { mode: 'all' } }, `?limit=2${page ? `&page=${page}` : ''}`).expect(200);
      expectContract(res, 'searchSiteContent');
      for (const group of res.body.items) for (const hit of group.pages) seen.push({ id: `${group.id}/${hit.id}`, rank: hit.rank, score: hit.score });
      page = res.body.next?.page;
    } while (page);
    seen.sort((a, b) => a.rank - b.rank);
    expect(seen.map((hit) => hit.rank)).toEqual([1, 2, 3, 4]);
    expect(new Set(seen.map((hit) => hit.id)).size).toBe(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i].score).toBeLessThanOrEqual(seen[i - 1].score);
  });

  it('walks hits of equal score across spaces without losing or repeating one', async () => {
    const twins = [(await createSpace(t, org, { title: 'Twin A' })).id, (await createSpace(t, org, { title: 'Twin B' })).id];
    for (const id of twins)
      await write(
        id,
        [0, 1, 2].map((i) => page(i, `Wombat ${i}`, 'The wombat digs.')),
      );
    const tied = await createSite(t, org, { spaces: twins });
    await t.http
      .post(`${sitePath(org, tied.id)}/publish`)
      .set(...org.admin.auth)
      .expect(200);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const res = await t.http
          .post(`${sitePath(org, tied.id)}/search?limit=${limit}${next ? `&page=${next}` : ''}`)
          .set(...org.admin.auth)
          .send({ query: 'wombat', scope: { mode: 'all' } })
          .expect(200);
        for (const group of res.body.items) for (const hit of group.pages) seen.push(`${group.id}/${hit.id}`);
        next = res.body.next?.page;
      } while (next);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
    }
  });

  it('answers 404 for an unpublished site, 400 for a bad scope, and outsiders 404', async () => {
    const hidden = await createSite(t, org, { spaces: [spaces.guides] });
    expectErrorEnvelope(
      await t.http
        .post(`${sitePath(org, hidden.id)}/search`)
        .set(...org.admin.auth)
        .send({ query: 'quokka', scope: { mode: 'all' } }),
      404,
    );
    expectErrorEnvelope(await t.http.post(`${sitePath(org, hidden.id)}/search/prewarm`).set(...org.admin.auth), 404);
    for (const body of [
      { query: 'quokka' },
      { query: 'quokka', scope: { mode: 'nope' } },
      { query: 'quokka', scope: { mode: 'default', restrictTo: 'currentSiteSpace' } },
      { query: 'quokka', scope: { mode: 'all' }, mode: 'all' },
      { query: '', scope: { mode: 'all' } },
      { query: 'x'.repeat(513), scope: { mode: 'all' } },
    ]) {
      expectErrorEnvelope(await search(body), 400);
    }
    const outsider = await createUser(t);
    expectErrorEnvelope(await search({ query: 'quokka', scope: { mode: 'all' } }, '', outsider), 404);
    expectErrorEnvelope(await t.http.post(`${sitePath(org, site.id)}/search`).send({ query: 'quokka', scope: { mode: 'all' } }), 401);
  });

  it("answers @gitbook/api's client as the renderer calls it", async () => {
    const endpoint = serverUrl(t);
    // The package's declarations import './client' without an extension, which this project's module resolution does not
    // follow: the client's methods are typed here by what the test calls.
    const api = new GitBookAPI({ endpoint, authToken: org.admin.token }) as unknown as {
      orgs: {
        searchSiteContent(org: string, site: string, body: object): Promise<{ status: number; data: { items: { id: string }[] } }>;
        prewarmSiteSearch(org: string, site: string): Promise<{ status: number }>;
      };
    };
    const res = await api.orgs.searchSiteContent(org.id, site.id, { query: 'quokka', mode: 'current', siteSpaceId: siteSpaces.recipes });
    expect(res.status).toBe(200);
    expect(new Set(res.data.items.map((item) => item.id))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const prewarm = await api.orgs.prewarmSiteSearch(org.id, site.id);
    expect(prewarm.status).toBe(204);
  });

  it('accepts a prewarm (204)', async () => {
    await t.http
      .post(`${sitePath(org, site.id)}/search/prewarm`)
      .set(...org.admin.auth)
      .expect(204);
  });
});
