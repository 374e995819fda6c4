import type { Response } from 'supertest';
import type { QueryRunner } from 'typeorm';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, serveWebsite, Website } from '../support/website-fixture';

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
