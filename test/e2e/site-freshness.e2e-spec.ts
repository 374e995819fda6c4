import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { RendererRevalidation } from '../../src/modules/sites/freshness/renderer-revalidation';
import { REVALIDATE_RENDERER } from '../../src/modules/sites/freshness/renderer-revalidation.job';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, OrgFixture } from '../support/builders';
import { createReaderSite } from '../support/published-builders';
import { createSite, sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const SECRET = 'renderer-secret-of-the-fixture-0123456789';
const PUBLISHED_BASE_URL = 'http://readers.test/sites';

/** A stand-in for the renderer's `/~gitbook/revalidate`: checks the signature as the renderer does, records what came. */
interface Received {
  path: string;
  tags: string[];
  signed: boolean;
}
async function rendererFixture(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const signed = req.headers['x-gitbook-signature'] === createHmac('sha256', SECRET).update(raw).digest('hex');
    received.push({ path: req.url ?? '', tags: (JSON.parse(raw) as { tags: string[] }).tags, signed });
    res.writeHead(signed ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(signed ? { success: true } : { error: 'Invalid signature' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function until<T>(probe: () => T | Promise<T>, what: string, ms = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Freshness (issue 26, point 9): what a published site shows changes → the renderer is told which cache tags to drop. */
describe('renderer freshness', () => {
  let fixture: Awaited<ReturnType<typeof rendererFixture>>;
  beforeAll(async () => (fixture = await rendererFixture()));
  afterAll(() => new Promise<void>((resolve) => fixture.server.close(() => resolve())));

  const revise = (t: TestApp, org: OrgFixture, spaceId: string, text: string) =>
    t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', ({ commitRevision }) =>
      commitRevision((base, em) =>
        t.app.get(RevisionWriter).write(
          {
            spaceId,
            parents: [base],
            type: 'edits',
            createdBy: null,
            pages: [documentPage({ pageId: 'p0', parentId: null, position: 0, title: 'Home', slug: 'home', markdown: text })],
            files: [],
          },
          em,
        ),
      ),
    );
  const queued = async (t: TestApp) =>
    ((await t.dataSource.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1`, [REVALIDATE_RENDERER.name])) as { n: number }[])[0].n;

  describe('with RENDERER_URL and RENDERER_SECRET', () => {
    let t: TestApp;
    let org: OrgFixture;
    beforeAll(async () => {
      t = await createTestApp({ JOBS_ENABLED: 'true', RENDERER_URL: `${fixture.url}/`, RENDERER_SECRET: SECRET, PUBLISHED_BASE_URL });
      org = await createOrganization(t);
    });
    afterAll(() => t.close());

    it('tells the renderer on publish, content, customization, structure and unpublish, signed as it checks; nothing for an unpublished site', async () => {
      const space = await createSpace(t, org);
      const site = await createSite(t, org, { spaces: [space.id] });
      const admin = (method: 'post' | 'put', path: string, body?: object) =>
        t.http[method](`${sitePath(org, site.id)}${path}`)
          .set(...org.admin.auth)
          .send(body);
      const customize = async (title: string) => {
        const current = await t.http
          .get(`${sitePath(org, site.id)}/customization`)
          .set(...org.admin.auth)
          .expect(200);
        await admin('put', '/customization', { ...current.body, title }).expect(200);
      };
      const tagsSeen = () => fixture.received.filter((entry) => entry.tags.includes(`site:${site.id}`));

      // Unpublished: a content change and a customization tell nobody.
      await revise(t, org, space.id, 'draft text');
      await customize('Quiet');
      expect(await queued(t)).toBe(0);

      await admin('post', '/publish').expect(200);
      await until(() => tagsSeen().length === 1, 'the publish revalidation');
      expect(tagsSeen()[0]).toEqual({ path: '/~gitbook/revalidate', tags: [`site:${site.id}`], signed: true });

      await revise(t, org, space.id, 'new text');
      await until(() => tagsSeen().length === 2, 'the content revalidation');
      expect(tagsSeen()[1]).toEqual({ path: '/~gitbook/revalidate', tags: [`space:${space.id}`, `site:${site.id}`], signed: true });

      await customize('Loud');
      await until(() => tagsSeen().length === 3, 'the customization revalidation');
      await admin('post', '/site-spaces', { spaceId: (await createSpace(t, org)).id }).expect(201);
      await until(() => tagsSeen().length === 4, 'the structure revalidation');
      await admin('post', '/unpublish').expect(200);
      await until(() => tagsSeen().length === 5, 'the unpublish revalidation');
      expect(tagsSeen().slice(2)).toEqual([
        { path: '/~gitbook/revalidate', tags: [`site:${site.id}`], signed: true },
        { path: '/~gitbook/revalidate', tags: [`site:${site.id}`], signed: true },
        { path: '/~gitbook/revalidate', tags: [`site:${site.id}`], signed: true },
      ]);

      const before = await queued(t);
      await revise(t, org, space.id, 'after unpublish');
      expect(await queued(t)).toBe(before);
    });

    it('the routes a site token reads carry x-gitbook-cache-tag: exactly the tags the job sends when what they show changes', async () => {
      const reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'public');
      const siteId = reader.site.id;
      await until(() => fixture.received.some((entry) => entry.tags.includes(`site:${siteId}`)), 'the publish revalidation');
      const resolved = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/` })
        .expect(200);
      expect(resolved.headers['x-gitbook-cache-tag']).toBeUndefined();
      const { space, revision, apiToken } = resolved.body as { space: string; revision: string; apiToken: string };
      const bearer = ['Authorization', `Bearer ${apiToken}`] as [string, string];
      const pages = await t.http
        .get(`/v1/spaces/${space}/revisions/${revision}/pages`)
        .set(...bearer)
        .expect(200);
      const pageId = pages.body.pages[0].id as string;
      const site = `/v1/orgs/${org.id}/sites/${siteId}`;
      const read = {
        getPublishedContentSite: t.http.get(`${site}/published`),
        searchSiteContent: t.http.post(`${site}/search`).send({ query: 'intro', scope: { mode: 'all' } }),
        getSpaceById: t.http.get(`/v1/spaces/${space}`),
        getRevisionById: t.http.get(`/v1/spaces/${space}/revisions/${revision}`),
        listPagesInRevisionById: t.http.get(`/v1/spaces/${space}/revisions/${revision}/pages`),
        getPageInRevisionById: t.http.get(`/v1/spaces/${space}/revisions/${revision}/page/${pageId}`),
        getPageDocumentInRevisionById: t.http.get(`/v1/spaces/${space}/revisions/${revision}/page/${pageId}/document`),
        getPageInRevisionByPath: t.http.get(`/v1/spaces/${space}/revisions/${revision}/path/intro`),
      };
      const tags: Record<string, string | undefined> = {};
      for (const [operation, request] of Object.entries(read)) {
        const res = await request.set(...bearer);
        expect({ operation, status: res.status }).toEqual({ operation, status: 200 });
        tags[operation] = res.headers['x-gitbook-cache-tag'];
      }
      const siteTag = `site:${siteId}`;
      const spaceTag = `space:${space}`;
      expect(tags).toEqual({
        getPublishedContentSite: siteTag,
        searchSiteContent: siteTag,
        getSpaceById: spaceTag,
        getRevisionById: spaceTag,
        listPagesInRevisionById: spaceTag,
        getPageInRevisionById: spaceTag,
        getPageDocumentInRevisionById: spaceTag,
        getPageInRevisionByPath: spaceTag,
      });

      // A new revision of the space: the job sends the space's tag and the site's, so every answer above is dropped.
      const seen = fixture.received.length;
      await revise(t, org, space, 'changed');
      const sent = (await until(() => fixture.received.slice(seen).find((entry) => entry.tags.includes(spaceTag)), 'the content revalidation'))!;
      expect(sent.tags).toEqual([spaceTag, siteTag]);
      for (const tag of new Set(Object.values(tags))) expect(sent.tags).toContain(tag);
    });

    it('fails the attempt (to be retried) when the renderer refuses the signature', async () => {
      const wrong = await createTestApp({ RENDERER_URL: fixture.url, RENDERER_SECRET: 'another-secret-0123456789' });
      try {
        await expect(wrong.app.get(RendererRevalidation).send(['site:x'])).rejects.toThrow(/401/);
        expect(fixture.received.at(-1)).toEqual({ path: '/~gitbook/revalidate', tags: ['site:x'], signed: false });
      } finally {
        await wrong.close();
      }
    });
  });

  describe('without them', () => {
    it('queues and sends nothing', async () => {
      const t = await createTestApp({ JOBS_ENABLED: 'true' });
      try {
        const org = await createOrganization(t);
        const space = await createSpace(t, org);
        const site = await createSite(t, org, { spaces: [space.id] });
        const count = fixture.received.length;
        const before = await queued(t);
        await t.http
          .post(`${sitePath(org, site.id)}/publish`)
          .set(...org.admin.auth)
          .expect(200);
        await revise(t, org, space.id, 'text');
        await t.app.get(RendererRevalidation).send([`site:${site.id}`]);
        expect(await queued(t)).toBe(before);
        expect(fixture.received.length).toBe(count);
      } finally {
        await t.close();
      }
    });
  });
});
