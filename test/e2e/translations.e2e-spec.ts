import { expectRefused, itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Translation settings follow section 2.18 of the API description; the public description's
 * `Translation` is another resource (a translation run), so these tests assert the shape themselves.
 */
describe('translation settings', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const translations = (org: OrgFixture) => `/v1/orgs/${org.id}/translations`;
  const settings = (org: OrgFixture, id: string) => `${translations(org)}/${id}`;
  const create = async (org: OrgFixture, body: object = { title: 'Docs', languages: ['fr'] }) =>
    (
      await t.http
        .post(translations(org))
        .set(...org.admin.auth)
        .send(body)
        .expect(201)
    ).body;

  const expectSettings = (body: unknown, org: OrgFixture, expected: { title: string; languages: string[]; permissions: object }) => {
    expect(body).toEqual({
      object: 'translation-settings',
      id: expect.any(String),
      title: expected.title,
      languages: expected.languages,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      permissions: expected.permissions,
      urls: { location: `http://quire.test/v1/orgs/${org.id}/translations/${(body as { id: string }).id}` },
    });
  };

  describe('POST /v1/orgs/{organizationId}/translations', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.post(translations(org)).send({ title: 'Docs' }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403 },
    });

    it('creates settings with canonical, de-duplicated language tags and a Location header', async () => {
      const org = await createOrganization(t);
      const res = await t.http
        .post(translations(org))
        .set(...org.admin.auth)
        .send({ title: 'Docs', languages: ['fr', 'pt-br', 'EN', 'fr'] })
        .expect(201);
      expectSettings(res.body, org, { title: 'Docs', languages: ['fr', 'pt-BR', 'en'], permissions: { view: true, edit: true } });
      expect(res.headers.location).toBe(res.body.urls.location);
      const none = await create(org, { title: 'No languages yet' });
      expect(none.languages).toEqual([]);
    });

    it('accepts a title of 100 characters and refuses 101', async () => {
      const org = await createOrganization(t);
      expect((await create(org, { title: 't'.repeat(100) })).title).toBe('t'.repeat(100));
      expectErrorEnvelope(
        await t.http
          .post(translations(org))
          .set(...org.admin.auth)
          .send({ title: 't'.repeat(101) }),
        400,
        /title/,
      );
    });

    it.each([
      ['an empty title', { title: '' }, /title/],
      ['a missing title', { languages: ['en'] }, /title/],
      ['a language that is not a BCP 47 tag', { title: 'T', languages: ['en', 'english'] }, /languages/],
      ['a language with an underscore', { title: 'T', languages: ['en_US'] }, /languages/],
      ['a language that is not a string', { title: 'T', languages: [1] }, /languages/],
      ['languages that are not a list', { title: 'T', languages: 'en' }, /languages/],
      ['101 languages', { title: 'T', languages: Array.from({ length: 101 }, () => 'en') }, /languages/],
      ['an unknown field', { title: 'T', source: 'x' }, /source/],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(translations(org))
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  describe('GET /v1/orgs/{organizationId}/translations', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(translations(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it('lists settings to any member, with their permissions, walking every one once', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await create(org, { title: `Set ${i}` })).id);
      await create(await createOrganization(t)); // another organization's
      const walk = await walkList(t, translations(org), reader, { limit: 2 }, (res) => {
        for (const item of res.body.items) expect(item.permissions).toEqual({ view: true, edit: false });
      });
      expect(walk).toEqual({ ids: created, pages: 3, count: 5 });
      const last = await t.http
        .get(translations(org))
        .query({ limit: 5 })
        .set(...reader.auth)
        .expect(200);
      expect(last.body).not.toHaveProperty('next');
    });

    it('accepts limit=1000 and refuses limit=1001', async () => {
      const org = await createOrganization(t);
      await expectLimitUpTo1000(t, translations(org), org.admin);
    });
  });

  describe('GET /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.get(settings(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: "answers 404 to a caller from another organization, and for another organization's settings",
        also: async (org, created) => {
          const other = await createOrganization(t);
          await expectRefused(() => t.http.get(settings(other, created.id)), [other.admin, 404]);
          await expectRefused(() => t.http.get(settings(org, 'nope')), [org.admin, 404]);
        },
      },
      member: { role: null, status: 403 },
    });

    it('answers the settings to any member', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const created = await create(org, { title: 'Docs', languages: ['de', 'ja'] });
      const res = await t.http
        .get(settings(org, created.id))
        .set(...reader.auth)
        .expect(200);
      expectSettings(res.body, org, { title: 'Docs', languages: ['de', 'ja'], permissions: { view: true, edit: false } });
    });
  });

  describe('PUT /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
    const rename = (org: OrgFixture, id: string) => t.http.put(settings(org, id)).send({ title: 'New' });
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => rename(org, created.id),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for unknown settings',
        also: (org) => expectRefused(() => rename(org, 'nope'), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('replaces the title, and the languages when given', async () => {
      const org = await createOrganization(t);
      const created = await create(org, { title: 'Docs', languages: ['fr'] });
      const renamed = await t.http
        .put(settings(org, created.id))
        .set(...org.admin.auth)
        .send({ title: 'Renamed' })
        .expect(200);
      expectSettings(renamed.body, org, { title: 'Renamed', languages: ['fr'], permissions: { view: true, edit: true } });
      const replaced = await t.http
        .put(settings(org, created.id))
        .set(...org.admin.auth)
        .send({ title: 'Renamed', languages: ['es', 'it'] })
        .expect(200);
      expect(replaced.body.languages).toEqual(['es', 'it']);
      expect(Date.parse(replaced.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      const cleared = await t.http
        .put(settings(org, created.id))
        .set(...org.admin.auth)
        .send({ title: 'Renamed', languages: [] })
        .expect(200);
      expect(cleared.body.languages).toEqual([]);
    });

    it('refuses a missing title, and 101 characters, with 400', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      expectErrorEnvelope(
        await t.http
          .put(settings(org, created.id))
          .set(...org.admin.auth)
          .send({ languages: ['en'] }),
        400,
        /title/,
      );
      expectErrorEnvelope(
        await t.http
          .put(settings(org, created.id))
          .set(...org.admin.auth)
          .send({ title: 'x'.repeat(101) }),
        400,
        /title/,
      );
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/translations/{translationSettingsId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.delete(settings(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for unknown settings',
        also: (org) => expectRefused(() => t.http.delete(settings(org, 'nope')), [org.admin, 404]),
      },
      member: { role: 'read', status: 403 },
    });

    it('deletes the settings with 205 and no body', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      const res = await t.http
        .delete(settings(org, created.id))
        .set(...org.admin.auth)
        .expect(205);
      expect(res.text).toBe('');
      expectErrorEnvelope(await t.http.get(settings(org, created.id)).set(...org.admin.auth), 404);
    });
  });
});
