import { IsNull } from 'typeorm';
import { SiteSection } from '../../src/modules/sites/site-section.entity';
import { SiteSectionGroup } from '../../src/modules/sites/site-section-group.entity';
import { SiteSpace } from '../../src/modules/sites/site-space.entity';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { addSection, createSite, createSiteWithSpaces, sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
      await t.http
        .delete(`${sections(org, site.id)}/${a.id}`)
        .set(...org.admin.auth)
        .expect(204);
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
