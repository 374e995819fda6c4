import { Revision } from '../../src/modules/content/revision.entity';
import { Clock } from '../../src/modules/spaces/clock';
import { expectRefused } from '../support/access-checks';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import type { Response } from 'supertest';
import type { QueryRunner } from 'typeorm';
import { DOCS_SITE, serveWebsite, Website } from '../support/website-fixture';

const DAY = 86_400_000;

describe('space lifecycle', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const spaceIds = async (org: OrgFixture, path = `/v1/orgs/${org.id}/spaces`): Promise<string[]> => {
    const res = await t.http
      .get(path)
      .query({ limit: 1000 })
      .set(...org.admin.auth)
      .expect(200);
    return res.body.items.map((item: { id: string }) => item.id);
  };
  const remove = (spaceId: string, actor: Actor) => t.http.delete(`/v1/spaces/${spaceId}`).set(...actor.auth);
  const restore = (spaceId: string, actor: Actor) => t.http.post(`/v1/spaces/${spaceId}/restore`).set(...actor.auth);
  const move = (spaceId: string, actor: Actor, body: object) =>
    t.http
      .post(`/v1/spaces/${spaceId}/move`)
      .set(...actor.auth)
      .send(body);
  /** Deletes the space as if the clock read `at`. */
  const removeAt = async (spaceId: string, actor: Actor, at: Date) => {
    const now = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(at);
    await remove(spaceId, actor).expect(205);
    now.mockRestore();
  };

  describe('DELETE /v1/spaces/{spaceId} and POST /restore', () => {
    it('require authentication', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expectErrorEnvelope(await t.http.delete(`/v1/spaces/${space.id}`), 401);
      expectErrorEnvelope(await t.http.post(`/v1/spaces/${space.id}/restore`), 401);
    });

    it('deletes softly: 205, hidden from lists and 404 on every route but restore, which brings it back in place', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const before = await createSpace(t, org, { parent: collection.id });
      const space = await createSpace(t, org, { parent: collection.id });
      const after = await createSpace(t, org, { parent: collection.id });

      const res = await remove(space.id, org.admin).expect(205);
      expect(res.text).toBe('');
      expect(await spaceIds(org)).toEqual([before.id, after.id]);
      expect(await spaceIds(org, `/v1/collections/${collection.id}/spaces`)).toEqual([before.id, after.id]);
      const auth = org.admin.auth;
      for (const req of [
        t.http.get(`/v1/spaces/${space.id}`).set(...auth),
        t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...auth)
          .send({ title: 'x' }),
        t.http.delete(`/v1/spaces/${space.id}`).set(...auth),
        t.http.post(`/v1/spaces/${space.id}/duplicate`).set(...auth),
        t.http
          .post(`/v1/spaces/${space.id}/move`)
          .set(...auth)
          .send({ parent: null }),
        t.http.get(`/v1/spaces/${space.id}/permissions/users`).set(...auth),
      ]) {
        expectErrorEnvelope(await req, 404);
      }

      const restored = await restore(space.id, org.admin).expect(200);
      expectContract(restored, 'restoreSpace');
      expect(restored.body).not.toHaveProperty('deletedAt');
      expect(restored.body).toMatchObject({ id: space.id, parent: collection.id, revision: space.revisionId });
      expect(await spaceIds(org)).toEqual([before.id, space.id, after.id]);
      await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...auth)
        .expect(200);
    });

    it('answers 404 outside the organization and 403 below admin, for delete and restore', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const outsider = await createUser(t);
      const creator = await addMember(t, org, 'create');
      expectErrorEnvelope(await remove(space.id, outsider), 404);
      expectErrorEnvelope(await remove(space.id, creator), 403);
      await remove(space.id, org.admin).expect(205);
      expectErrorEnvelope(await restore(space.id, outsider), 404);
      expectErrorEnvelope(await restore(space.id, creator), 403);
      expectErrorEnvelope(await restore('unknown', org.admin), 404);
    });

    it('refuses to restore a space that is not deleted with 409', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expectErrorEnvelope(await restore(space.id, org.admin), 409, /not deleted/);
    });

    it('restores up to the end of the 7 days, and answers 404 after them', async () => {
      const org = await createOrganization(t);
      const recent = await createSpace(t, org);
      const old = await createSpace(t, org);
      await removeAt(recent.id, org.admin, new Date(Date.now() - 7 * DAY + 60_000));
      await removeAt(old.id, org.admin, new Date(Date.now() - 7 * DAY - 60_000));
      await restore(recent.id, org.admin).expect(200);
      expectErrorEnvelope(await restore(old.id, org.admin), 404, /retention/);
    });

    it('brings back to the top level a space whose collection was deleted meanwhile', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const space = await createSpace(t, org, { parent: collection.id });
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ visibility: 'in-collection' })
        .expect(200);
      await remove(space.id, org.admin).expect(205);
      await t.http
        .delete(`/v1/collections/${collection.id}`)
        .set(...org.admin.auth)
        .expect(204);
      const restored = await restore(space.id, org.admin).expect(200);
      expect(restored.body).not.toHaveProperty('parent');
      expect(restored.body.visibility).toBe('private');
    });
  });

  describe('POST /v1/spaces/{spaceId}/duplicate', () => {
    it('creates a copy next to the source, with the same settings and a copy of its revision', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const source = await createSpace(t, org, { parent: collection.id, title: 'Handbook' });
      const last = await createSpace(t, org, { parent: collection.id });
      await t.http
        .patch(`/v1/spaces/${source.id}`)
        .set(...org.admin.auth)
        .send({ emoji: '📘', visibility: 'in-collection', defaultLevel: 'comment', editMode: 'locked' })
        .expect(200);

      const res = await t.http
        .post(`/v1/spaces/${source.id}/duplicate`)
        .set(...org.admin.auth)
        .expect(201);
      expectContract(res, 'duplicateSpace');
      expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${res.body.id}`);
      expect(res.body).toMatchObject({
        title: 'Handbook (copy)',
        emoji: '📘',
        visibility: 'in-collection',
        defaultLevel: 'comment',
        editMode: 'locked',
        parent: collection.id,
        organization: org.id,
      });
      expect(res.body.id).not.toBe(source.id);
      expect(res.body.revision).not.toBe(source.revisionId);
      const revision = await t.dataSource.getRepository(Revision).findOneByOrFail({ id: res.body.revision });
      expect(revision).toMatchObject({ spaceId: res.body.id, parents: [source.revisionId] });
      expect(await spaceIds(org, `/v1/collections/${collection.id}/spaces`)).toEqual([source.id, res.body.id, last.id]);
    });

    it('needs view on the source and create where the copy goes', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const reader = await addMember(t, org, 'read');
      expectErrorEnvelope(await t.http.post(`/v1/spaces/${space.id}/duplicate`).set(...reader.auth), 403, /top level/);
      const guest = await addMember(t, org, null);
      expectErrorEnvelope(await t.http.post(`/v1/spaces/${space.id}/duplicate`).set(...guest.auth), 403, /view/);
      const creator = await addMember(t, org, 'create');
      await t.http
        .post(`/v1/spaces/${space.id}/duplicate`)
        .set(...creator.auth)
        .expect(201);
    });
  });

  describe('POST /v1/spaces/{spaceId}/move', () => {
    it('answers 403 below admin', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const moveToTop = () => t.http.post(`/v1/spaces/${space.id}/move`).send({ parent: null });
      await expectRefused(moveToTop, [await addMember(t, org, 'create'), 403]);
    });

    it('keeps the order given with before and after, and lists return it', async () => {
      const org = await createOrganization(t);
      const [a, b, c, d] = [await createSpace(t, org), await createSpace(t, org), await createSpace(t, org), await createSpace(t, org)];
      const res = await move(d.id, org.admin, { position: { before: { type: 'space', space: b.id } } }).expect(200);
      expectContract(res, 'moveSpace');
      expect(await spaceIds(org)).toEqual([a.id, d.id, b.id, c.id]);
      await move(a.id, org.admin, { position: { after: { type: 'space', space: c.id } } }).expect(200);
      expect(await spaceIds(org)).toEqual([d.id, b.id, c.id, a.id]);
      await move(a.id, org.admin, { position: { before: { type: 'space', space: d.id } } }).expect(200);
      expect(await spaceIds(org)).toEqual([a.id, d.id, b.id, c.id]);
    });

    it('keeps the order when many moves land in the same gap (the order is renumbered)', async () => {
      const org = await createOrganization(t);
      const first = await createSpace(t, org);
      const last = await createSpace(t, org);
      const inserted: string[] = [];
      for (let i = 0; i < 14; i++) {
        const space = await createSpace(t, org);
        await move(space.id, org.admin, { position: { after: { type: 'space', space: first.id } } }).expect(200);
        inserted.unshift(space.id);
      }
      expect(await spaceIds(org)).toEqual([first.id, ...inserted, last.id]);
    });

    it('places a space next to a collection, the two kinds sharing one order', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const a = await createSpace(t, org);
      const b = await createSpace(t, org);
      await move(b.id, org.admin, { position: { before: { type: 'collection', collection: collection.id } } }).expect(200);
      expect(await spaceIds(org)).toEqual([b.id, a.id]);
    });

    it('moves into a collection (at its end, or next to a sibling there) and back to the top level', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const inside = await createSpace(t, org, { parent: collection.id });
      const space = await createSpace(t, org);
      const other = await createSpace(t, org);

      let res = await move(space.id, org.admin, { parent: collection.id }).expect(200);
      expect(res.body.parent).toBe(collection.id);
      expect(await spaceIds(org, `/v1/collections/${collection.id}/spaces`)).toEqual([inside.id, space.id]);
      await move(other.id, org.admin, { parent: collection.id, position: { before: { type: 'space', space: inside.id } } }).expect(200);
      expect(await spaceIds(org, `/v1/collections/${collection.id}/spaces`)).toEqual([other.id, inside.id, space.id]);

      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .send({ visibility: 'in-collection' })
        .expect(200);
      res = await move(space.id, org.admin, { parent: null }).expect(200);
      expect(res.body).not.toHaveProperty('parent');
      // in-collection means nothing outside a collection: the space falls back to private.
      expect(res.body.visibility).toBe('private');
    });

    it('needs create in the target collection', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const editor = await addMember(t, org, 'edit');
      const space = await createSpace(t, org);
      await t.http
        .post(`/v1/spaces/${space.id}/permissions`)
        .set(...org.admin.auth)
        .send({ role: 'admin', users: [editor.user.id] })
        .expect(204);
      expectErrorEnvelope(await move(space.id, editor, { parent: collection.id }), 403, /create/);
      // Back to the top level needs the create role in the organization, which an editor lacks.
      await move(space.id, org.admin, { parent: collection.id }).expect(200);
      expectErrorEnvelope(await move(space.id, editor, { parent: null }), 403, /top level/);
    });

    it.each([
      ['an empty body', {}, /parent/],
      ['both before and after', (a: string) => ({ position: { before: { type: 'space', space: a }, after: { type: 'space', space: a } } }), /position/],
      ['neither before nor after', { position: {} }, /position/],
      ['a pointer of an unknown type', (a: string) => ({ position: { before: { type: 'page', space: a } } }), /type/],
      ['a pointer without its id', { position: { before: { type: 'space' } } }, /space/],
      ['a malformed parent', { parent: 'a/b' }, /parent/],
    ])('refuses %s with 400', async (_case, body, field) => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const anchor = await createSpace(t, org);
      expectErrorEnvelope(await move(space.id, org.admin, typeof body === 'function' ? body(anchor.id) : body), 400, field);
    });

    it('refuses a pointer that is not beside the destination, or the space itself, with 400; an unknown parent with 404', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const space = await createSpace(t, org);
      const inside = await createSpace(t, org, { parent: collection.id });
      const foreign = await createSpace(t, await createOrganization(t, { admin: org.admin }));
      const deleted = await createSpace(t, org);
      await remove(deleted.id, org.admin).expect(205);
      for (const pointer of [inside.id, foreign.id, deleted.id, 'unknown']) {
        expectErrorEnvelope(await move(space.id, org.admin, { position: { before: { type: 'space', space: pointer } } }), 400, /position.before/);
      }
      expectErrorEnvelope(await move(space.id, org.admin, { position: { after: { type: 'space', space: space.id } } }), 400, /itself/);
      expectErrorEnvelope(await move(space.id, org.admin, { parent: 'unknown' }), 404);
    });
  });

  describe('POST /v1/spaces/{spaceId}/transfer', () => {
    /** Two organizations administered by the same user. */
    async function twoOrganizations() {
      const source = await createOrganization(t);
      const target = await createOrganization(t, { admin: source.admin });
      return { source, target, admin: source.admin };
    }
    const transfer = (spaceId: string, actor: Actor, body: object) =>
      t.http
        .post(`/v1/spaces/${spaceId}/transfer`)
        .set(...actor.auth)
        .send(body);

    it('requires authentication and answers 404 outside the organization', async () => {
      const { source, target } = await twoOrganizations();
      const space = await createSpace(t, source);
      const toTarget = () => t.http.post(`/v1/spaces/${space.id}/transfer`).send({ organization: target.id });
      await expectRefused(toTarget, [null, 401]);
      await expectRefused(toTarget, [await createUser(t), 404]);
    });

    it('moves the space to the end of the other organization, dropping grants that cannot follow', async () => {
      const { source, target, admin } = await twoOrganizations();
      const existing = await createSpace(t, target);
      const space = await createSpace(t, source, { title: 'Moving' });
      const reader = await addMember(t, source, 'read');
      const guest = await addMember(t, source, null);
      await t.http
        .post(`/v1/spaces/${space.id}/permissions`)
        .set(...admin.auth)
        .send({ role: 'edit', users: [guest.user.id] })
        .expect(204);

      const res = await transfer(space.id, admin, { organization: target.id }).expect(200);
      // The public description has no transfer of spaces: the answer is a Space, checked field by field.
      expect(res.body).toEqual({
        object: 'space',
        id: space.id,
        title: 'Moving',
        emoji: '',
        visibility: 'private',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        editMode: 'live',
        organization: target.id,
        revision: space.revisionId,
        defaultLevel: null,
        comments: 0,
        changeRequests: 0,
        changeRequestsOpen: 0,
        changeRequestsDraft: 0,
        mergeRules: { type: 'inherit' },
        urls: { location: `http://quire.test/v1/spaces/${space.id}`, app: `http://app.quire.test/o/${target.id}/s/${space.id}` },
        permissions: expect.objectContaining({ view: true, admin: true, edit: true }),
      });
      expect(await spaceIds(target)).toEqual([existing.id, space.id]);
      expect(await spaceIds(source)).toEqual([]);
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}`).set(...reader.auth), 404);
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}`).set(...guest.auth), 404);
      const grants = await t.http
        .get(`/v1/spaces/${space.id}/permissions/users`)
        .set(...admin.auth)
        .expect(200);
      expect(grants.body).toEqual({ items: [], count: 0 });
    });

    it('puts the space into a collection of the target organization, and in-collection falls back to private at the top level', async () => {
      const { source, target, admin } = await twoOrganizations();
      const there = await createCollection(t, target);
      const here = await createCollection(t, source);
      const space = await createSpace(t, source, { parent: here.id });
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...admin.auth)
        .send({ visibility: 'in-collection' })
        .expect(200);
      const res = await transfer(space.id, admin, { organization: target.id, collection: there.id }).expect(200);
      expect(res.body).toMatchObject({ organization: target.id, parent: there.id, visibility: 'in-collection' });
      const back = await transfer(space.id, admin, { organization: source.id }).expect(200);
      expect(back.body).toMatchObject({ organization: source.id, visibility: 'private' });
      expect(back.body).not.toHaveProperty('parent');
      expectErrorEnvelope(await transfer(space.id, admin, { organization: target.id, collection: here.id }), 404, /Collection/);
    });

    it('takes an admin of both organizations, and another organization than the current one', async () => {
      const { source, target, admin } = await twoOrganizations();
      const space = await createSpace(t, source);
      const sourceCreator = await addMember(t, source, 'create');
      expectErrorEnvelope(await transfer(space.id, sourceCreator, { organization: target.id }), 403);
      // Admin here, creator there.
      const adminHere = await addMember(t, source, 'admin');
      await addMember(t, target, 'create', { email: adminHere.user.email });
      expectErrorEnvelope(await transfer(space.id, adminHere, { organization: target.id }), 403, new RegExp(target.id));
      // Not in the target at all.
      const elsewhere = await createOrganization(t);
      expectErrorEnvelope(await transfer(space.id, admin, { organization: elsewhere.id }), 404, /Organization/);
      expectErrorEnvelope(await transfer(space.id, admin, { organization: source.id }), 400, /organization/);
      expectErrorEnvelope(await transfer(space.id, admin, {}), 400, /organization/);
    });
  });
});

/**
 * The spaces' unit of work under concurrency, with two connections: a second connection holds the
 * space's row lock while requests queue behind it, so the order in which they reach the row is known.
 */
describe('space writes under the row lock', () => {
  let t: TestApp;
  let site: Website;
  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  /** Holds the space's row lock in a connection of its own until `release()`. */
  async function holdRow(spaceId: string): Promise<{ holder: QueryRunner; release: () => Promise<void> }> {
    const holder: QueryRunner = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT id FROM spaces WHERE id = $1 FOR UPDATE', [spaceId]);
    return {
      holder,
      release: async () => {
        await holder.commitTransaction();
        await holder.release();
      },
    };
  }

  /** Waits until `count` other backends wait on a lock (the queued requests reached the row). */
  async function lockWaiters(count: number): Promise<void> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const [{ waiting }] = await t.dataSource.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      if (waiting >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${count} requests ever waited on the row lock`);
  }

  const row = async (spaceId: string): Promise<{ title: string; deleted_at: Date | null }> =>
    (await t.dataSource.query('SELECT title, deleted_at FROM spaces WHERE id = $1', [spaceId]))[0];
  const send = (org: OrgFixture, method: 'patch' | 'delete', spaceId: string): Promise<Response> => {
    const req = t.http[method](`/v1/spaces/${spaceId}`).set(...org.admin.auth);
    // `then` sends the request now; the test awaits the answer later.
    return (method === 'patch' ? req.send({ title: 'Written by the PATCH' }) : req).then((res) => res);
  };

  /** A space whose PATCH and DELETE queue on its row lock in `order`; resolves once both are answered to be awaited. */
  async function queueOnRow(order: ['patch' | 'delete', 'patch' | 'delete']) {
    const org = await createOrganization(t);
    const space = await createSpace(t, org, { title: 'Before' });
    const lock = await holdRow(space.id);
    const answers: Partial<Record<'patch' | 'delete', Promise<Response>>> = {};
    try {
      for (const [index, method] of order.entries()) {
        answers[method] = send(org, method, space.id);
        await lockWaiters(index + 1);
      }
    } finally {
      await lock.release();
    }
    return { space, patch: answers.patch as Promise<Response>, remove: answers.delete as Promise<Response> };
  }

  it('a PATCH queued behind a DELETE finds the space deleted: 404, and the deleted row is not written', async () => {
    const { space, patch, remove } = await queueOnRow(['delete', 'patch']);
    expect((await remove).status).toBe(205);
    expectErrorEnvelope(await patch, 404);
    const after = await row(space.id);
    expect(after.title).toBe('Before');
    expect(after.deleted_at).not.toBeNull();
  });

  it('a PATCH ahead of a DELETE lands first, then the DELETE: both succeed, in that order', async () => {
    const { space, patch, remove } = await queueOnRow(['patch', 'delete']);
    const patched = await patch;
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Written by the PATCH' });
    expect(patched.body).not.toHaveProperty('deletedAt');
    expect((await remove).status).toBe(205);
    const after = await row(space.id);
    expect(after.title).toBe('Written by the PATCH');
    expect(after.deleted_at).not.toBeNull();
  });

  it('a rename answers the space as the lock found it and the rename left it: what a GET reads after the commit', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org, { title: 'Before' });
    // While the rename waits for the row, the lock's holder locks the space's content and changes its emoji.
    const lock = await holdRow(space.id);
    let renamed: Promise<Response>;
    try {
      await lock.holder.query(`UPDATE spaces SET edit_mode = 'locked', emoji = '1f4d8' WHERE id = $1`, [space.id]);
      renamed = send(org, 'patch', space.id);
      await lockWaiters(1);
    } finally {
      await lock.release();
    }
    const patched = await renamed;
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Written by the PATCH', emoji: '1f4d8' });
    expect(patched.body.permissions).toMatchObject({ admin: true, edit: false, merge: false });
    const read = await t.http
      .get(`/v1/spaces/${space.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(patched.body).toEqual(read.body);
    // A change the caller's rank depends on is read back, not derived.
    const other = await createOrganization(t);
    const guestSpace = await createSpace(t, other, { title: 'Levels' });
    const levelled = await t.http
      .patch(`/v1/spaces/${guestSpace.id}`)
      .set(...other.admin.auth)
      .send({ defaultLevel: 'edit' })
      .expect(200);
    expect(levelled.body).toEqual(
      (
        await t.http
          .get(`/v1/spaces/${guestSpace.id}`)
          .set(...other.admin.auth)
          .expect(200)
      ).body,
    );
  });

  it('an import that crawled while the space was being locked finds it locked under the row lock: 403, no new revision', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const lock = await holdRow(space.id);
    let imported: Promise<Response> | undefined;
    try {
      // The route's guard lets it through (the space is live); the crawl runs; the write then queues on the row.
      imported = t.http
        .post(`/v1/spaces/${space.id}/content/import`)
        .set(...org.admin.auth)
        .send({ url: `${site.origin}/docs/`, source: 'website' })
        .then((res) => res);
      await lockWaiters(1);
      await lock.holder.query(`UPDATE spaces SET edit_mode = 'locked' WHERE id = $1`, [space.id]);
    } finally {
      await lock.release();
    }
    expectErrorEnvelope(await imported, 403, /locked/);
    const [{ revision_id }] = await t.dataSource.query('SELECT revision_id FROM spaces WHERE id = $1', [space.id]);
    expect(revision_id).toBe(space.revisionId);
  });
});
