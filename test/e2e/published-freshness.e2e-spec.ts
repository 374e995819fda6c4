import { Client } from 'pg';
import { createOrganization, OrgFixture, unique } from '../support/builders';
import { TEST_DATABASE_URL } from '../support/database';
import { createReaderSite, ReaderSite, writeTree } from '../support/published-builders';
import { sitePath } from '../support/site-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { SnapshotFreshness } from '../../src/modules/published/snapshot-freshness';

/**
 * URL resolution answers from site snapshots kept in memory (no query per request while the process
 * listens for changes). They must never outlive what they were read from: each change below is made
 * on a warm cache, and the very next resolution must see it. A change made by another process (here a
 * separate connection, as another replica would) is seen once PostgreSQL's notification arrives; with
 * the listening connection gone, resolution reads the generation per request and is still never stale.
 */

const PUBLISHED_BASE_URL = 'http://readers.test/sites';

describe('POST /v1/urls/published: kept snapshots never outlive a change', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: ReaderSite;
  let path: string;
  let other: Client;

  const resolve = (page = 'getting-started/install', query = '') => t.http.post('/v1/urls/published').send({ url: `${reader.base}/${page}${query}` });
  /** Resolves twice: the second answer comes from the kept snapshot. */
  const warm = async (expected: number, page?: string, query?: string) => {
    expect((await resolve(page, query)).status).toBe(expected);
    expect((await resolve(page, query)).status).toBe(expected);
  };
  const admin = () => org.admin.auth;
  /** Polls until `check` holds (a notification from another connection arrives moments after its COMMIT). */
  const eventually = async (check: () => Promise<boolean>, ms = 3000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('never happened');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'public');
    path = sitePath(org, reader.site.id);
    other = new Client({ connectionString: process.env[TEST_DATABASE_URL] });
    await other.connect();
    await eventually(async () => t.app.get(SnapshotFreshness).epoch() !== null);
  });

  afterAll(async () => {
    await other.end();
    await t.close();
  });

  it('unpublish and publish are seen by the next resolution', async () => {
    await warm(200);
    await t.http
      .post(`${path}/unpublish`)
      .set(...admin())
      .expect(200);
    expect((await resolve()).status).toBe(404);
    await t.http
      .post(`${path}/publish`)
      .set(...admin())
      .expect(200);
    expect((await resolve()).status).toBe(200);
  });

  it('a visibility change, a share link revoked, a visitor-auth switch are seen by the next resolution', async () => {
    await warm(200);
    await t.http
      .patch(path)
      .set(...admin())
      .send({ visibility: 'share-link' })
      .expect(200);
    expect((await resolve()).status).toBe(404);
    const link = await t.http
      .post(`${path}/share-links`)
      .set(...admin())
      .send({ name: 'Readers' })
      .expect(201);
    await warm(200, undefined, `?share=${link.body.key}`);
    await t.http
      .patch(`${path}/share-links/${link.body.id}`)
      .set(...admin())
      .send({ active: false })
      .expect(200);
    expect((await resolve(undefined, `?share=${link.body.key}`)).status).toBe(404);
    await t.http
      .patch(path)
      .set(...admin())
      .send({ visibility: 'visitor-auth' })
      .expect(200);
    expect((await resolve()).status).toBe(401);
    await t.http
      .patch(path)
      .set(...admin())
      .send({ visibility: 'public' })
      .expect(200);
    expect((await resolve()).status).toBe(200);
  });

  it("a new revision of a shown space is the next resolution's revision, with its pages", async () => {
    await warm(200);
    await warm(404, 'brand-new');
    const revision = await writeTree(t, org, reader.spaces.guides, [
      { pageId: unique('p'), title: 'Intro', slug: 'intro' },
      { pageId: 'gs', title: 'Getting started', slug: 'getting-started' },
      { pageId: unique('p'), title: 'Install', slug: 'install', parentId: 'gs' },
      { pageId: unique('p'), title: 'Brand new', slug: 'brand-new' },
    ]);
    const res = await resolve();
    expect(res.status).toBe(200);
    expect(res.body.revision).toBe(revision);
    expect((await resolve('brand-new')).status).toBe(200);
  });

  it("another process's change is seen as soon as its notification arrives", async () => {
    await warm(200);
    await other.query(`UPDATE sites SET published = false WHERE id = $1`, [reader.site.id]);
    await eventually(async () => (await resolve()).status === 404);
    await other.query(`UPDATE sites SET published = true WHERE id = $1`, [reader.site.id]);
    await eventually(async () => (await resolve()).status === 200);
  });

  it('without its listening connection, a process reads the generation per request (never stale), and listens again', async () => {
    const freshness = t.app.get(SnapshotFreshness);
    await warm(200);
    const pid = (freshness as unknown as { client: { processID: number } }).client.processID;
    await other.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await eventually(async () => freshness.epoch() === null);
    await warm(200);
    // No notification can be heard now: the generation read per request sees the change at once.
    await other.query(`UPDATE sites SET published = false WHERE id = $1`, [reader.site.id]);
    expect((await resolve()).status).toBe(404);
    await other.query(`UPDATE sites SET published = true WHERE id = $1`, [reader.site.id]);
    expect((await resolve()).status).toBe(200);
    await eventually(async () => freshness.epoch() !== null);
    await warm(200);
  });
});
