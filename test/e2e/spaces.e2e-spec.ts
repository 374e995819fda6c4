import { Client } from 'pg';
import { Revision } from '../../src/modules/content/revision.entity';
import { expectRefused } from '../support/access-checks';
import { addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000 } from '../support/org-admin-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { createSite, sitePath } from '../support/site-builders';

describe('spaces', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const emoji50 = '🎉'.repeat(50);

  describe('POST /v1/orgs/{organizationId}/spaces', () => {
    it('requires authentication', async () => {
      const org = await createOrganization(t);
      expectErrorEnvelope(await t.http.post(`/v1/orgs/${org.id}/spaces`).send({ title: 'Docs' }), 401);
    });

    it('creates a space with its first, empty revision, and answers it with a Location header', async () => {
      const org = await createOrganization(t);
      const res = await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'Handbook', emoji: '📘', editMode: 'live', empty: true })
        .expect(201);
      expectContract(res, 'createSpace');
      expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${res.body.id}`);
      expect(res.body).toEqual({
        object: 'space',
        id: expect.any(String),
        title: 'Handbook',
        emoji: '📘',
        visibility: 'private',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        editMode: 'live',
        organization: org.id,
        revision: expect.any(String),
        defaultLevel: null,
        comments: 0,
        changeRequests: 0,
        changeRequestsOpen: 0,
        changeRequestsDraft: 0,
        mergeRules: { type: 'inherit' },
        urls: { location: res.headers.location, app: `http://app.quire.test/o/${org.id}/s/${res.body.id}` },
        permissions: {
          view: true,
          access: true,
          admin: true,
          viewInviteLinks: true,
          edit: true,
          triggerGitSync: true,
          comment: true,
          merge: true,
          review: true,
          installIntegration: true,
        },
      });
      const revision = await t.dataSource.getRepository(Revision).findOneByOrFail({ id: res.body.revision });
      expect(revision).toMatchObject({ spaceId: res.body.id, parents: [], createdBy: org.admin.user.id });
    });

    it('creates a space inside a collection', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const res = await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'Inside', parent: collection.id, editMode: 'locked' })
        .expect(201);
      expectContract(res, 'createSpace');
      expect(res.body).toMatchObject({ parent: collection.id, editMode: 'locked', permissions: { edit: false, merge: false, admin: true } });
    });

    const createMine = (org: OrgFixture) => t.http.post(`/v1/orgs/${org.id}/spaces`).send({ title: 'Mine' });

    it('answers 404 to a caller outside the organization', async () => {
      const org = await createOrganization(t);
      await expectRefused(() => createMine(org), [await createUser(t), 404]);
    });

    it('needs the create role at the top level: 403 below it', async () => {
      const org = await createOrganization(t);
      for (const role of ['review', 'read', null] as const) await expectRefused(() => createMine(org), [await addMember(t, org, role), 403]);
      const creator = await addMember(t, org, 'create');
      const res = await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...creator.auth)
        .send({ title: 'Mine' })
        .expect(201);
      // A creator is not an admin of the organization, and nothing raises them on the new space.
      expect(res.body.permissions).toMatchObject({ view: true, edit: true, admin: false });
    });

    it('lets a member create inside a collection where they hold create, even with a lower organization role', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const reader = await addMember(t, org, 'read');
      expectErrorEnvelope(
        await t.http
          .post(`/v1/orgs/${org.id}/spaces`)
          .set(...reader.auth)
          .send({ parent: collection.id }),
        403,
      );
      await t.http
        .patch(`/v1/collections/${collection.id}`)
        .set(...org.admin.auth)
        .send({ defaultLevel: 'create' })
        .expect(200);
      await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...reader.auth)
        .send({ parent: collection.id })
        .expect(201);
    });

    it('answers 404 for a parent collection that does not exist or belongs to another organization', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t, { admin: org.admin });
      const foreign = await createCollection(t, other);
      for (const parent of ['nope', foreign.id]) {
        expectErrorEnvelope(
          await t.http
            .post(`/v1/orgs/${org.id}/spaces`)
            .set(...org.admin.auth)
            .send({ parent }),
          404,
          /Collection/,
        );
      }
    });

    it('accepts a title and an emoji of 50 characters (an emoji counts once)', async () => {
      const org = await createOrganization(t);
      const res = await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'é'.repeat(50), emoji: emoji50 })
        .expect(201);
      expect(res.body.title).toBe('é'.repeat(50));
      expect(res.body.emoji).toBe(emoji50);
    });

    it.each([
      ['a title of 51 characters', { title: 'a'.repeat(51) }, /title/],
      ['an emoji of 51 characters', { emoji: `${emoji50}🎉` }, /emoji/],
      ['a title that is not a string', { title: 5 }, /title/],
      ['an unknown edit mode', { editMode: 'frozen' }, /editMode/],
      ['a malformed parent id', { parent: 'a b' }, /parent/],
      ['an unknown field', { title: 'Docs', color: 'red' }, /color/],
      ['empty set to false', { empty: false }, /empty/],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(`/v1/orgs/${org.id}/spaces`)
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  describe('GET /v1/spaces/{spaceId}', () => {
    it('requires authentication', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}`), 401);
    });

    it('answers the space with the permissions of the caller', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org, { title: 'Guide' });
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'getSpaceById');
      expect(res.body).toMatchObject({ id: space.id, title: 'Guide', revision: space.revisionId });
      expect(res.body.permissions).toEqual({
        view: true,
        access: true,
        admin: false,
        viewInviteLinks: false,
        edit: false,
        triggerGitSync: false,
        comment: false,
        merge: false,
        review: false,
        installIntegration: false,
      });
    });

    it('answers 404 outside the organization and for an unknown id, 403 to a guest without a grant', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await expectRefused(() => t.http.get(`/v1/spaces/${space.id}`), [await createUser(t), 404]);
      await expectRefused(() => t.http.get('/v1/spaces/unknown'), [org.admin, 404]);
      await expectRefused(() => t.http.get(`/v1/spaces/${space.id}`), [await addMember(t, org, null), 403]);
    });

    it('gives published URLs by visibility; a share-link space needs the key of a share link of a site showing it', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const published = `http://app.quire.test/published/${space.id}`;
      const setVisibility = (visibility: string) =>
        t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...org.admin.auth)
          .send({ visibility })
          .expect(200);

      let res = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.urls).not.toHaveProperty('published');

      await setVisibility('public');
      res = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.urls).toMatchObject({ published, public: published });

      await setVisibility('unlisted');
      res = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.urls.published).toBe(published);
      expect(res.body.urls).not.toHaveProperty('public');

      await setVisibility('share-link');
      res = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.urls).not.toHaveProperty('published');
      const withKey = (shareKey: string) =>
        t.http
          .get(`/v1/spaces/${space.id}`)
          .query({ shareKey })
          .set(...org.admin.auth)
          .expect(200);
      // A key that opens nothing gets nothing extra.
      expect((await withKey('k3y_1')).body.urls).not.toHaveProperty('published');
      const site = await createSite(t, org, { spaces: [space.id], visibility: 'share-link' });
      const link = await t.http
        .post(`${sitePath(org, site.id)}/share-links`)
        .set(...org.admin.auth)
        .send({ name: 'Partners' })
        .expect(201);
      res = await withKey(link.body.key);
      expectContract(res, 'getSpaceById');
      expect(res.body.urls.published).toBe(`${published}?share=${link.body.key}`);
      // Deactivated, or on a site that is not share-link, the key opens nothing.
      await t.http
        .patch(`${sitePath(org, site.id)}/share-links/${link.body.id}`)
        .set(...org.admin.auth)
        .send({ active: false })
        .expect(200);
      expect((await withKey(link.body.key)).body.urls).not.toHaveProperty('published');
      await t.http
        .patch(`${sitePath(org, site.id)}/share-links/${link.body.id}`)
        .set(...org.admin.auth)
        .send({ active: true })
        .expect(200);
      await t.http
        .patch(sitePath(org, site.id))
        .set(...org.admin.auth)
        .send({ visibility: 'public' })
        .expect(200);
      expect((await withKey(link.body.key)).body.urls).not.toHaveProperty('published');
    });

    it('accepts a shareKey of 256 characters and refuses 257 or a malformed one', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await t.http
        .get(`/v1/spaces/${space.id}`)
        .query({ shareKey: 'k'.repeat(256) })
        .set(...org.admin.auth)
        .expect(200);
      for (const shareKey of ['k'.repeat(257), 'a/b']) {
        expectErrorEnvelope(
          await t.http
            .get(`/v1/spaces/${space.id}`)
            .query({ shareKey })
            .set(...org.admin.auth),
          400,
          /shareKey/,
        );
      }
    });
  });

  describe('PATCH /v1/spaces/{spaceId}', () => {
    it('lets an admin change title, emoji, edit mode, default level and visibility', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const res = await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ title: 't'.repeat(50), emoji: emoji50, editMode: 'locked', defaultLevel: 'edit', visibility: 'unlisted' })
        .expect(200);
      expectContract(res, 'updateSpaceById');
      expect(res.body).toMatchObject({ title: 't'.repeat(50), emoji: emoji50, editMode: 'locked', defaultLevel: 'edit', visibility: 'unlisted' });
      expect(res.body.permissions).toMatchObject({ admin: true, edit: false, merge: false, triggerGitSync: false });
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.createdAt));

      const cleared = await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ emoji: null, defaultLevel: null, editMode: 'live' })
        .expect(200);
      expect(cleared.body).toMatchObject({ emoji: '', defaultLevel: null, editMode: 'live', permissions: { edit: true } });
    });

    it('reads the space with the caller’s access twice per rename: the guard’s read, and the re-check under the row lock, prepared', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const patch = (title: string) =>
        t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...org.admin.auth)
          .send({ title })
          .expect(200);
      await patch('Warm');
      // Every statement the app sends while the next rename runs (the app runs in this process, on this `pg`).
      const sent: { name?: string; text: string }[] = [];
      const query = Client.prototype.query;
      Client.prototype.query = function (this: Client, ...args: unknown[]) {
        const config = args[0] as string | { name?: string; text?: string };
        sent.push(typeof config === 'string' ? { text: config } : { name: config?.name, text: config?.text ?? '' });
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      let res;
      try {
        res = await patch('Renamed');
      } finally {
        Client.prototype.query = query;
      }
      expect(res.body).toMatchObject({ title: 'Renamed', permissions: { admin: true } });
      const accessReads = sent.filter(({ text }) => text.includes('AS access_rank'));
      // Named unless the run goes through PgBouncer in transaction mode (DATABASE_PREPARED_STATEMENTS=false: plain statements).
      const named = process.env.DATABASE_PREPARED_STATEMENTS !== 'false';
      expect(accessReads.map(({ name, text }) => ({ name, locks: text.includes('FOR UPDATE') }))).toEqual([
        { name: named ? 'quire_find_space' : undefined, locks: false },
        { name: named ? 'quire_lock_space' : undefined, locks: true },
      ]);
    });

    it('allows in-collection visibility only for a space inside a collection', async () => {
      const org = await createOrganization(t);
      const top = await createSpace(t, org);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/spaces/${top.id}`)
          .set(...org.admin.auth)
          .send({ visibility: 'in-collection' }),
        400,
        /visibility/,
      );
      const collection = await createCollection(t, org);
      const inside = await createSpace(t, org, { parent: collection.id });
      const res = await t.http
        .patch(`/v1/spaces/${inside.id}`)
        .set(...org.admin.auth)
        .send({ visibility: 'in-collection' })
        .expect(200);
      expect(res.body.visibility).toBe('in-collection');
    });

    it('answers 404 outside the organization and 403 below admin', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const rename = () => t.http.patch(`/v1/spaces/${space.id}`).send({ title: 'Mine' });
      await expectRefused(rename, [await createUser(t), 404]);
      await expectRefused(rename, [await addMember(t, org, 'create'), 403]);
    });

    it.each([
      ['a title of 51 characters', { title: 'a'.repeat(51) }, /title/],
      ['an emoji of 51 characters', { emoji: `${emoji50}🎉` }, /emoji/],
      ['an unknown visibility', { visibility: 'secret' }, /visibility/],
      ['an unknown default level', { defaultLevel: 'owner' }, /defaultLevel/],
      ['an unknown edit mode', { editMode: 'frozen' }, /editMode/],
      ['a field that cannot change', { organization: 'x' }, /organization/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });
  });

  describe('GET /v1/orgs/{organizationId}/spaces', () => {
    /** Every id of a list, following `next.page`, checking each page against the public schema. */
    async function walk(org: OrgFixture, path: string, limit: number, actor = org.admin) {
      const ids: string[] = [];
      const counts: number[] = [];
      let page: string | undefined;
      do {
        const res = await t.http
          .get(path)
          .query({ limit, ...(page ? { page } : {}) })
          .set(...actor.auth)
          .expect(200);
        expectContract(res, path.includes('/collections/') ? 'listSpacesInCollectionById' : 'listSpacesInOrganizationById');
        ids.push(...res.body.items.map((item: { id: string }) => item.id));
        counts.push(res.body.count);
        page = res.body.next?.page;
      } while (page);
      return { ids, counts };
    }

    it('requires authentication and answers 404 outside the organization', async () => {
      const org = await createOrganization(t);
      await expectRefused(() => t.http.get(`/v1/orgs/${org.id}/spaces`), [null, 401]);
      await expectRefused(() => t.http.get(`/v1/orgs/${org.id}/spaces`), [await createUser(t), 404]);
    });

    it('walks every space of the organization once, in their kept order, with the filtered count', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await createSpace(t, org, i % 2 ? { parent: collection.id } : {})).id);
      await createSpace(t, await createOrganization(t)); // another organization's: never listed

      const { ids, counts } = await walk(org, `/v1/orgs/${org.id}/spaces`, 3);
      expect(ids).toEqual(created);
      expect(counts).toEqual([7, 7, 7]);
    });

    it('omits next on the last page, and shows a guest only the spaces granted to them', async () => {
      const org = await createOrganization(t);
      const first = await createSpace(t, org);
      await createSpace(t, org);
      const guest = await addMember(t, org, null);
      await t.http
        .post(`/v1/spaces/${first.id}/permissions`)
        .set(...org.admin.auth)
        .send({ role: 'comment', users: [guest.user.id] })
        .expect(204);
      const res = await t.http
        .get(`/v1/orgs/${org.id}/spaces`)
        .set(...guest.auth)
        .expect(200);
      expectContract(res, 'listSpacesInOrganizationById');
      expect(res.body).not.toHaveProperty('next');
      expect(res.body.count).toBe(1);
      expect(res.body.items.map((item: { id: string }) => item.id)).toEqual([first.id]);
      expect(res.body.items[0].permissions).toMatchObject({ view: true, comment: true, edit: false });
    });

    it('accepts limit=1000 and refuses limit=1001 and a cursor from another list', async () => {
      const org = await createOrganization(t);
      await createSpace(t, org);
      await createSpace(t, org);
      await expectLimitUpTo1000(t, `/v1/orgs/${org.id}/spaces`, org.admin);
      const first = await t.http
        .get(`/v1/orgs/${org.id}/spaces`)
        .query({ limit: 1 })
        .set(...org.admin.auth)
        .expect(200);
      // The same key values under another list's name: a cursor is only good for the list that made it.
      const { k } = JSON.parse(Buffer.from(first.body.next.page, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify({ l: 'collection-spaces:position:asc', k })).toString('base64url');
      expectErrorEnvelope(
        await t.http
          .get(`/v1/orgs/${org.id}/spaces`)
          .query({ page: forged })
          .set(...org.admin.auth),
        400,
        /page/,
      );
    });

    it('lists a collection’s spaces in their kept order, walking every page', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const inside: string[] = [];
      for (let i = 0; i < 5; i++) inside.push((await createSpace(t, org, { parent: collection.id })).id);
      await createSpace(t, org);
      const { ids, counts } = await walk(org, `/v1/collections/${collection.id}/spaces`, 2);
      expect(ids).toEqual(inside);
      expect(counts).toEqual([5, 5, 5]);
    });

    it('answers 401, 404 and 403 on a collection’s spaces as on the collection', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const spaces = () => t.http.get(`/v1/collections/${collection.id}/spaces`);
      await expectRefused(spaces, [null, 401]);
      await expectRefused(spaces, [await createUser(t), 404]);
      await expectRefused(spaces, [await addMember(t, org, null), 403]);
    });
  });
});
