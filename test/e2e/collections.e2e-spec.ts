import { expectRefused } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('collections', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const collectionIds = async (org: OrgFixture, query: Record<string, string | number> = {}, actor: Actor = org.admin): Promise<string[]> => {
    const res = await t.http
      .get(`/v1/orgs/${org.id}/collections`)
      .query({ limit: 1000, ...query })
      .set(...actor.auth)
      .expect(200);
    return res.body.items.map((item: { id: string }) => item.id);
  };
  const move = (collectionId: string, actor: Actor, body: object) =>
    t.http
      .post(`/v1/collections/${collectionId}/move`)
      .set(...actor.auth)
      .send(body);

  describe('POST /v1/orgs/{organizationId}/collections', () => {
    it('creates a collection, at the top level or in a parent, with a Location header', async () => {
      const org = await createOrganization(t);
      const res = await t.http
        .post(`/v1/orgs/${org.id}/collections`)
        .set(...org.admin.auth)
        .send({ title: 'Guides' })
        .expect(201);
      expectContract(res, 'createCollection');
      expect(res.headers.location).toBe(`http://quire.test/v1/collections/${res.body.id}`);
      expect(res.body).toEqual({
        object: 'collection',
        id: expect.any(String),
        title: 'Guides',
        organization: org.id,
        defaultLevel: null,
        urls: { location: res.headers.location, app: `http://app.quire.test/o/${org.id}/c/${res.body.id}` },
        permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
      });
      const child = await t.http
        .post(`/v1/orgs/${org.id}/collections`)
        .set(...org.admin.auth)
        .send({ title: 'Child', parent: res.body.id })
        .expect(201);
      expect(child.body.parent).toBe(res.body.id);
    });

    it('needs create: the organization role at the top level, the collection level inside one', async () => {
      const org = await createOrganization(t);
      const parent = await createCollection(t, org);
      const reviewer = await addMember(t, org, 'review');
      for (const body of [{ title: 'Top' }, { title: 'In', parent: parent.id }]) {
        expectErrorEnvelope(
          await t.http
            .post(`/v1/orgs/${org.id}/collections`)
            .set(...reviewer.auth)
            .send(body),
          403,
        );
      }
      await t.http
        .post(`/v1/collections/${parent.id}/permissions`)
        .set(...org.admin.auth)
        .send({ role: 'create', users: [reviewer.user.id] })
        .expect(204);
      await t.http
        .post(`/v1/orgs/${org.id}/collections`)
        .set(...reviewer.auth)
        .send({ title: 'In', parent: parent.id })
        .expect(201);
    });

    it('accepts a title of 50 characters and refuses 51, an unknown parent (404) and an unknown field', async () => {
      const org = await createOrganization(t);
      await t.http
        .post(`/v1/orgs/${org.id}/collections`)
        .set(...org.admin.auth)
        .send({ title: 'c'.repeat(50) })
        .expect(201);
      expectErrorEnvelope(
        await t.http
          .post(`/v1/orgs/${org.id}/collections`)
          .set(...org.admin.auth)
          .send({ title: 'c'.repeat(51) }),
        400,
        /title/,
      );
      expectErrorEnvelope(
        await t.http
          .post(`/v1/orgs/${org.id}/collections`)
          .set(...org.admin.auth)
          .send({ parent: 'unknown' }),
        404,
      );
      expectErrorEnvelope(
        await t.http
          .post(`/v1/orgs/${org.id}/collections`)
          .set(...org.admin.auth)
          .send({ title: 'x', description: 'not here' }),
        400,
        /description/,
      );
    });
  });

  describe('GET, PATCH and DELETE /v1/collections/{collectionId}', () => {
    it('require authentication', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      await expectRefused(() => t.http.get(`/v1/collections/${collection.id}`), [null, 401]);
      await expectRefused(() => t.http.patch(`/v1/collections/${collection.id}`).send({ title: 'x' }), [null, 401]);
      await expectRefused(() => t.http.delete(`/v1/collections/${collection.id}`), [null, 401]);
    });

    it('shows a collection to members with their permissions; 404 outside, 403 to a guest without a grant', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org, { title: 'Guides' });
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .get(`/v1/collections/${collection.id}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'getCollectionById');
      expect(res.body).toMatchObject({ title: 'Guides', permissions: { view: true, admin: false, create: false, viewInviteLinks: false } });
      await expectRefused(() => t.http.get(`/v1/collections/${collection.id}`), [await createUser(t), 404]);
      await expectRefused(() => t.http.get('/v1/collections/unknown'), [org.admin, 404]);
      await expectRefused(() => t.http.get(`/v1/collections/${collection.id}`), [await addMember(t, org, null), 403]);
    });

    it('lets an admin change title, description and default level, and clear them', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const res = await t.http
        .patch(`/v1/collections/${collection.id}`)
        .set(...org.admin.auth)
        .send({ title: 't'.repeat(50), description: 'd'.repeat(100), defaultLevel: 'comment' })
        .expect(200);
      expectContract(res, 'updateCollectionById');
      expect(res.body).toMatchObject({ title: 't'.repeat(50), description: 'd'.repeat(100), defaultLevel: 'comment' });
      const cleared = await t.http
        .patch(`/v1/collections/${collection.id}`)
        .set(...org.admin.auth)
        .send({ description: null, defaultLevel: null })
        .expect(200);
      expect(cleared.body).not.toHaveProperty('description');
      expect(cleared.body.defaultLevel).toBeNull();
    });

    it.each([
      ['a title of 51 characters', { title: 'a'.repeat(51) }, /title/],
      ['a description of 101 characters', { description: 'a'.repeat(101) }, /description/],
      ['an unknown default level', { defaultLevel: 'inherit-ish' }, /defaultLevel/],
      ['a parent (moves go through /move)', { parent: null }, /parent/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/collections/${collection.id}`)
          .set(...org.admin.auth)
          .send(body),
        400,
        field,
      );
    });

    it('refuses PATCH and DELETE below admin with 403, and outside the organization with 404', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const creator = await addMember(t, org, 'create');
      await expectRefused(() => t.http.patch(`/v1/collections/${collection.id}`).send({ title: 'Mine' }), [creator, 403]);
      await expectRefused(() => t.http.delete(`/v1/collections/${collection.id}`), [creator, 403]);
      await expectRefused(() => t.http.delete(`/v1/collections/${collection.id}`), [await createUser(t), 404]);
    });

    it('refuses to delete a collection that holds spaces or collections (409), and deletes it once empty', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const child = await createCollection(t, org, { parent: collection.id });
      const space = await createSpace(t, org, { parent: collection.id });
      expectErrorEnvelope(await t.http.delete(`/v1/collections/${collection.id}`).set(...org.admin.auth), 409, /1 space\(s\) and 1 collection\(s\)/);
      await t.http
        .delete(`/v1/collections/${child.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expectErrorEnvelope(await t.http.delete(`/v1/collections/${collection.id}`).set(...org.admin.auth), 409);
      // A deleted space does not hold the collection: it waits for restore at the top level.
      await t.http
        .delete(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .expect(205);
      await t.http
        .delete(`/v1/collections/${collection.id}`)
        .set(...org.admin.auth)
        .expect(204);
      expectErrorEnvelope(await t.http.get(`/v1/collections/${collection.id}`).set(...org.admin.auth), 404);
    });
  });

  describe('GET /v1/orgs/{organizationId}/collections', () => {
    it('walks every collection once in the kept order; nested=false keeps the top level', async () => {
      const org = await createOrganization(t);
      const a = await createCollection(t, org);
      const a1 = await createCollection(t, org, { parent: a.id });
      const b = await createCollection(t, org);
      const a11 = await createCollection(t, org, { parent: a1.id });
      const c = await createCollection(t, org);
      await createCollection(t, await createOrganization(t));

      const ids: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const res = await t.http
          .get(`/v1/orgs/${org.id}/collections`)
          .query({ limit: 2, ...(page ? { page } : {}) })
          .set(...org.admin.auth)
          .expect(200);
        expectContract(res, 'listCollectionsInOrganizationById');
        expect(res.body.count).toBe(5);
        ids.push(...res.body.items.map((item: { id: string }) => item.id));
        page = res.body.next?.page;
        pages++;
      } while (page);
      expect(ids).toEqual([a.id, a1.id, b.id, a11.id, c.id]);
      expect(pages).toBe(3);
      expect(await collectionIds(org, { nested: 'true' })).toEqual(ids);
      expect(await collectionIds(org, { nested: 'false' })).toEqual([a.id, b.id, c.id]);
      expectErrorEnvelope(
        await t.http
          .get(`/v1/orgs/${org.id}/collections`)
          .query({ nested: 'yes' })
          .set(...org.admin.auth),
        400,
        /nested/,
      );
    });

    it('shows a guest the collections granted to them and those below', async () => {
      const org = await createOrganization(t);
      await createCollection(t, org);
      const granted = await createCollection(t, org);
      const below = await createCollection(t, org, { parent: granted.id });
      const guest = await addMember(t, org, null);
      await t.http
        .post(`/v1/collections/${granted.id}/permissions`)
        .set(...org.admin.auth)
        .send({ role: 'read', users: [guest.user.id] })
        .expect(204);
      expect(await collectionIds(org, {}, guest)).toEqual([granted.id, below.id]);
      expect(await collectionIds(org, { nested: 'false' }, guest)).toEqual([granted.id]);
    });
  });

  describe('POST /v1/collections/{collectionId}/move', () => {
    it('answers 403 below admin', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const moveToTop = () => t.http.post(`/v1/collections/${collection.id}/move`).send({ parent: null });
      await expectRefused(moveToTop, [await addMember(t, org, 'create'), 403]);
    });

    it('moves under another collection and keeps the order given with before and after', async () => {
      const org = await createOrganization(t);
      const [a, b, c] = [await createCollection(t, org), await createCollection(t, org), await createCollection(t, org)];
      const res = await move(c.id, org.admin, { position: { before: { type: 'collection', collection: a.id } } }).expect(200);
      expectContract(res, 'moveCollection');
      expect(await collectionIds(org)).toEqual([c.id, a.id, b.id]);
      await move(c.id, org.admin, { parent: a.id }).expect(200);
      expect(await collectionIds(org, { nested: 'false' })).toEqual([a.id, b.id]);
      const inside = await move(b.id, org.admin, { parent: a.id, position: { before: { type: 'collection', collection: c.id } } }).expect(200);
      expect(inside.body.parent).toBe(a.id);
      expect(await collectionIds(org)).toEqual([a.id, b.id, c.id]);
      const top = await move(b.id, org.admin, { parent: null }).expect(200);
      expect(top.body).not.toHaveProperty('parent');
    });

    it('refuses to move a collection under itself or its descendants (400): no cycles', async () => {
      const org = await createOrganization(t);
      const root = await createCollection(t, org);
      const child = await createCollection(t, org, { parent: root.id });
      const grandchild = await createCollection(t, org, { parent: child.id });
      expectErrorEnvelope(await move(root.id, org.admin, { parent: root.id }), 400, /itself/);
      expectErrorEnvelope(await move(root.id, org.admin, { parent: grandchild.id }), 400, /inside/);
      expectErrorEnvelope(await move(child.id, org.admin, { parent: grandchild.id }), 400, /inside/);
      // A move sideways or upwards is fine.
      await move(grandchild.id, org.admin, { parent: null }).expect(200);
      await move(root.id, org.admin, { parent: grandchild.id }).expect(200);
    });

    it('refuses a pointer outside the destination (400), an unknown parent (404) and an empty body (400)', async () => {
      const org = await createOrganization(t);
      const a = await createCollection(t, org);
      const b = await createCollection(t, org);
      const inA = await createCollection(t, org, { parent: a.id });
      expectErrorEnvelope(await move(b.id, org.admin, { position: { after: { type: 'collection', collection: inA.id } } }), 400, /position.after/);
      expectErrorEnvelope(await move(b.id, org.admin, { parent: 'unknown' }), 404);
      expectErrorEnvelope(await move(b.id, org.admin, {}), 400, /parent/);
    });
  });

  describe('POST /v1/collections/{collectionId}/transfer', () => {
    it('moves the collection with everything below it to the top level of the other organization, dropping grants', async () => {
      const source = await createOrganization(t);
      const target = await createOrganization(t, { admin: source.admin });
      const admin = source.admin;
      const outer = await createCollection(t, source);
      const root = await createCollection(t, source, { parent: outer.id });
      const child = await createCollection(t, source, { parent: root.id });
      const space = await createSpace(t, source, { parent: child.id });
      const stays = await createSpace(t, source, { parent: outer.id });
      const member = await addMember(t, source, 'read');
      await t.http
        .post(`/v1/collections/${child.id}/permissions`)
        .set(...admin.auth)
        .send({ role: 'admin', users: [member.user.id] })
        .expect(204);

      const res = await t.http
        .post(`/v1/collections/${root.id}/transfer`)
        .set(...admin.auth)
        .send({ organization: target.id })
        .expect(200);
      expectContract(res, 'transferCollection');
      expect(res.body).toMatchObject({ id: root.id, organization: target.id });
      expect(res.body).not.toHaveProperty('parent');
      expect(await collectionIds(target)).toEqual([root.id, child.id]);
      expect(await collectionIds(source)).toEqual([outer.id]);
      const moved = await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...admin.auth)
        .expect(200);
      expect(moved.body).toMatchObject({ organization: target.id, parent: child.id });
      const kept = await t.http
        .get(`/v1/spaces/${stays.id}`)
        .set(...admin.auth)
        .expect(200);
      expect(kept.body.organization).toBe(source.id);
      expectErrorEnvelope(await t.http.get(`/v1/collections/${child.id}`).set(...member.auth), 404);
      const grants = await t.http
        .get(`/v1/collections/${child.id}/permissions/users`)
        .set(...admin.auth)
        .expect(200);
      expect(grants.body.count).toBe(0);
    });

    it('takes an admin of both organizations', async () => {
      const source = await createOrganization(t);
      const target = await createOrganization(t, { admin: source.admin });
      const collection = await createCollection(t, source);
      const transfer = (actor: Actor, organization: string) =>
        t.http
          .post(`/v1/collections/${collection.id}/transfer`)
          .set(...actor.auth)
          .send({ organization });
      expectErrorEnvelope(await transfer(await addMember(t, source, 'create'), target.id), 403);
      const adminHere = await addMember(t, source, 'admin');
      await addMember(t, target, 'edit', { email: adminHere.user.email });
      expectErrorEnvelope(await transfer(adminHere, target.id), 403);
      expectErrorEnvelope(await transfer(source.admin, (await createOrganization(t)).id), 404);
      expectErrorEnvelope(await transfer(source.admin, source.id), 400, /organization/);
    });
  });
});
