import { Site } from '../../src/modules/sites/site.entity';
import { SiteShareLink } from '../../src/modules/sites/site-share-link.entity';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { addSection, createSite, createSiteWithSpaces, sitePath } from '../support/site-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
