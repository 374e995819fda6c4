import { SiteSpace } from '../../src/modules/sites/site-space.entity';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { addSection, createSite, createSiteWithSpaces, sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
