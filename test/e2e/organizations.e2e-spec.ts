import { expectRefused } from '../support/access-checks';
import { addMember, createOrganization, createUser, OrgFixture, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSite } from '../support/site-builders';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { createTestApp, TestApp } from '../support/test-app';

describe('organizations', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  describe('POST /v1/orgs', () => {
    it('requires authentication', async () => {
      expectErrorEnvelope(await t.http.post('/v1/orgs').send({ title: 'Docs' }), 401);
    });

    it('creates an organization whose admin is the caller, with a Location header', async () => {
      const actor = await createUser(t);
      const res = await t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .send({ title: 'Acme Docs', emailDomains: ['acme.test'] })
        .expect(201);
      expectContract(res, 'createOrganization');
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${res.body.id}`);
      expect(res.body).toMatchObject({ object: 'organization', title: 'Acme Docs', emailDomains: ['acme.test'], permissions: { admin: true } });
      const got = await t.http
        .get(`/v1/orgs/${res.body.id}`)
        .set(...actor.auth)
        .expect(200);
      expect(got.body.id).toBe(res.body.id);
    });

    it.each([
      ['a title of 1 character', { title: 'A' }, /title/],
      ['a title of 256 characters', { title: 'a'.repeat(256) }, /title/],
      ['a missing title', {}, /title/],
      ['an unknown field', { title: 'Docs', color: 'red' }, /color/],
      ['a bad e-mail domain', { title: 'Docs', emailDomains: ['not a domain'] }, /emailDomains/],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      const actor = await createUser(t);
      expectErrorEnvelope(
        await t.http
          .post('/v1/orgs')
          .set(...actor.auth)
          .send(body),
        400,
        field,
      );
    });

    it('accepts a title of 255 characters', async () => {
      const actor = await createUser(t);
      await t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .send({ title: 'a'.repeat(255) })
        .expect(201);
    });
  });

  describe('GET /v1/orgs/{organizationId}', () => {
    it("reads a member's membership with the token, in one round trip; a stranger still gets 404, a disabled member too", async () => {
      const org = await createOrganization(t);
      const stranger = await createUser(t);
      // A spy that keeps the real method: it only counts the organization guard's own lookups.
      const lookups = jest.spyOn(t.app.get(OrganizationsRepository), 'findMembership');
      try {
        const res = await t.http
          .get(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .expect(200);
        expectContract(res, 'getOrganizationById');
        expect(lookups).not.toHaveBeenCalled();
        await t.http
          .get(`/v1/orgs/${org.id}`)
          .set(...stranger.auth)
          .expect(404);
        expect(lookups).toHaveBeenCalledTimes(1);
      } finally {
        lookups.mockRestore();
      }
      const member = await addMember(t, org, 'read');
      await t.dataSource.query(`UPDATE memberships SET disabled = true WHERE organization_id = $1 AND user_id = $2`, [org.id, member.user.id]);
      await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...member.auth)
        .expect(404);
    });

    it('answers the organization with permissions from the caller role', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const asAdmin = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(asAdmin, 'getOrganizationById');
      expect(asAdmin.body.permissions).toMatchObject({ admin: true, createContent: true, listMembers: true });
      const asReader = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(asReader, 'getOrganizationById');
      expect(asReader.body.permissions).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true });
    });

    it('shows a guest that it may not list members', async () => {
      const org = await createOrganization(t);
      const guest = await addMember(t, org, null);
      const res = await t.http
        .get(`/v1/orgs/${org.id}`)
        .set(...guest.auth)
        .expect(200);
      expect(res.body.permissions).toMatchObject({ view: true, listMembers: false, listTeams: false });
    });

    it('answers 404 to a caller outside the organization', async () => {
      const org = await createOrganization(t);
      const outsider = await createUser(t);
      const res = await t.http.get(`/v1/orgs/${org.id}`).set(...outsider.auth);
      expectErrorEnvelope(res, 404);
      expectContract(res, 'getOrganizationById');
    });

    it('answers 404 for an organization that does not exist', async () => {
      const actor = await createUser(t);
      expectErrorEnvelope(await t.http.get('/v1/orgs/nope').set(...actor.auth), 404);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}', () => {
    it('lets an admin update the organization', async () => {
      const org = await createOrganization(t);
      const hostname = unique('h').slice(0, 20);
      const res = await t.http
        .patch(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .send({ title: 'Renamed', hostname, defaultRole: 'read', inviteLinks: true, logo: 'https://cdn.test/logo.png' })
        .expect(200);
      expectContract(res, 'updateOrganizationById');
      expect(res.body).toMatchObject({ title: 'Renamed', hostname, defaultRole: 'read', inviteLinks: true, urls: { logo: 'https://cdn.test/logo.png' } });
      const cleared = await t.http
        .patch(`/v1/orgs/${org.id}`)
        .set(...org.admin.auth)
        .send({ defaultRole: null, logo: null })
        .expect(200);
      expect(cleared.body.defaultRole).toBeNull();
      expect(cleared.body.urls.logo).toBeUndefined();
    });

    it('sets the default site (`defaultContent`), only to a site of the organization, and clears it', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      const site = await createSite(t, org);
      const foreign = await createSite(t, other);
      const patch = (body: object) =>
        t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send(body);
      const set = await patch({ defaultContent: { type: 'site', site: site.id } }).expect(200);
      expectContract(set, 'updateOrganizationById');
      expect(set.body.defaultContent).toEqual({ type: 'site', site: site.id });
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toEqual({ type: 'site', site: site.id });
      expectErrorEnvelope(await patch({ defaultContent: { type: 'site', site: foreign.id } }), 400, /defaultContent.site/);
      expectErrorEnvelope(await patch({ defaultContent: { type: 'space', site: site.id } }), 400, /type/);
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toEqual({ type: 'site', site: site.id });
      const cleared = await patch({ defaultContent: null }).expect(200);
      expect(cleared.body.defaultContent).toBeUndefined();
      await patch({ defaultContent: { type: 'site', site: site.id } }).expect(200);
      await t.http
        .delete(`/v1/orgs/${org.id}/sites/${site.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}`)
            .set(...org.admin.auth)
            .expect(200)
        ).body.defaultContent,
      ).toBeUndefined();
    });

    const rename = (org: OrgFixture) => t.http.patch(`/v1/orgs/${org.id}`).send({ title: 'Mine' });

    it('refuses a member who is not an admin with 403', async () => {
      const org = await createOrganization(t);
      await expectRefused(() => rename(org), [await addMember(t, org, 'create'), 403]);
    });

    it('answers 409 when the hostname is taken by another organization', async () => {
      const first = await createOrganization(t);
      const second = await createOrganization(t);
      const hostname = unique('taken').slice(0, 20);
      await t.http
        .patch(`/v1/orgs/${first.id}`)
        .set(...first.admin.auth)
        .send({ hostname })
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${second.id}`)
          .set(...second.admin.auth)
          .send({ hostname }),
        409,
      );
    });

    it.each([
      ['an invalid role', { defaultRole: 'owner' }, /defaultRole/],
      ['a hostname with capitals', { hostname: 'Acme' }, /hostname/],
      ['a non-boolean flag', { sso: 'yes' }, /sso/],
      ['a logo that is not a URL', { logo: 'logo.png' }, /logo/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  describe('GET /v1/orgs', () => {
    it('requires authentication', async () => {
      expectErrorEnvelope(await t.http.get('/v1/orgs'), 401);
    });

    it('walks every organization of the caller exactly once, even with inserts during the walk', async () => {
      const actor = await createUser(t);
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await createOrganization(t, { admin: actor })).id);
      await createOrganization(t); // someone else's: never listed

      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = await t.http
          .get('/v1/orgs')
          .query({ limit: 3, ...(page ? { page } : {}) })
          .set(...actor.auth)
          .expect(200);
        expectContract(res, 'listOrganizationsForAuthenticatedUser');
        seen.push(...res.body.items.map((item: { id: string }) => item.id));
        if (pages === 0) {
          expect(res.body.count).toBe(7);
          created.push((await createOrganization(t, { admin: actor })).id); // joins at the end of the walk
        }
        page = res.body.next?.page;
        pages++;
      } while (page);

      expect(seen).toEqual(created);
      expect(pages).toBe(3);
    });

    it('omits next on the last page', async () => {
      const actor = await createUser(t);
      await createOrganization(t, { admin: actor });
      const res = await t.http
        .get('/v1/orgs')
        .set(...actor.auth)
        .expect(200);
      expect(res.body.count).toBe(1);
      expect(res.body).not.toHaveProperty('next');
    });

    it.each([['0'], ['1001'], ['abc'], ['2.5']])('refuses limit=%s with 400', async (limit) => {
      const actor = await createUser(t);
      expectErrorEnvelope(
        await t.http
          .get('/v1/orgs')
          .query({ limit })
          .set(...actor.auth),
        400,
        /limit/,
      );
    });

    it('accepts limit=1 and limit=1000', async () => {
      const actor = await createUser(t);
      await t.http
        .get('/v1/orgs')
        .query({ limit: 1 })
        .set(...actor.auth)
        .expect(200);
      await t.http
        .get('/v1/orgs')
        .query({ limit: 1000 })
        .set(...actor.auth)
        .expect(200);
    });

    it('refuses a tampered cursor with 400', async () => {
      const actor = await createUser(t);
      await createOrganization(t, { admin: actor });
      await createOrganization(t, { admin: actor });
      const first = await t.http
        .get('/v1/orgs')
        .query({ limit: 1 })
        .set(...actor.auth)
        .expect(200);
      const cursor: string = first.body.next.page;
      const forged = Buffer.from(JSON.stringify({ l: 'members', k: ['x', 'y'] })).toString('base64url');
      for (const page of [cursor.slice(0, -3), `${cursor}!`, 'bm90LWpzb24', forged]) {
        expectErrorEnvelope(
          await t.http
            .get('/v1/orgs')
            .query({ page })
            .set(...actor.auth),
          400,
          /page/,
        );
      }
    });
  });
});
