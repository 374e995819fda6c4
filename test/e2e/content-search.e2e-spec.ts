import { addMember, Actor, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createImportedSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, generatedSite, serveWebsite, Website } from '../support/website-fixture';

describe('search and links', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;
  let space: { id: string };
  let revision: string;
  let outsider: Actor;
  let guest: Actor;
  /** Page ids by path, and file ids by name. */
  let pages: Record<string, string>;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite({ ...DOCS_SITE, ...generatedSite(40) });
    org = await createOrganization(t);
    const imported = await createImportedSpace(t, org, site);
    ({ space, revision, pages } = imported);
    for (const file of imported.files) files[file.name] = file.id;
    outsider = await createUser(t);
    guest = await addMember(t, org, null);
    // References embed the Space; give it an emoji, which the public schema requires to be a real one.
    await t.http
      .patch(`/v1/spaces/${space.id}`)
      .set(...org.admin.auth)
      .send({ emoji: '1f4da' })
      .expect(200);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const get = (path: string, actor: Actor = org.admin) => t.http.get(path).set(...actor.auth);
  /** Every reference of a links list is a public ContentLocation. */
  const expectLinkReferences = (items: any[]) => {
    for (const item of items) {
      expectPublicSchema(item.targetReference, 'ContentLocation');
      for (const location of item.locationReferences) expectPublicSchema(location, 'ContentLocationPage');
    }
  };
  /** The organization and space of a reference: the objects GET /v1/orgs/{id} and GET /v1/spaces/{id} show the caller. */
  const containersOf = async (actor: Actor = org.admin) => {
    const organization = (await get(`/v1/orgs/${org.id}`, actor).expect(200)).body;
    const spaceJson = (await get(`/v1/spaces/${space.id}`, actor).expect(200)).body;
    return { organization, space: spaceJson };
  };

  describe('GET /v1/spaces/{spaceId}/search', () => {
    const search = (query: Record<string, string | number>, actor?: Actor) =>
      get(`/v1/spaces/${space.id}/search?${new URLSearchParams(query as never)}`, actor);

    it('finds a word in a body, with the matching section', async () => {
      const res = await search({ query: 'frobnicator' }).expect(200);
      expectContract(res, 'searchSpaceContent');
      expect(res.body).toEqual({
        count: 1,
        items: [
          expect.objectContaining({
            id: pages['guide/install'],
            title: 'Installation',
            path: 'guide/install',
            rank: 1,
            ancestors: [{ title: 'User Guide' }],
            urls: { app: `http://app.quire.test/o/${org.id}/s/${space.id}/guide/install` },
          }),
        ],
      });
      const [item] = res.body.items;
      // Both sections name the frobnicator: the lead one and "Requirements".
      expect(item.sections.map((section: { id: string }) => section.id).sort()).toEqual(['requirements', 'top']);
      expect(item.sections.find((section: { id: string }) => section.id === 'requirements')).toMatchObject({
        title: 'Requirements',
        path: 'guide/install#requirements',
        body: expect.stringContaining('a working frobnicator'),
        urls: { app: `http://app.quire.test/o/${org.id}/s/${space.id}/guide/install#requirements` },
      });
    });

    it('ranks a title match above a body match', async () => {
      const res = await search({ query: 'widgets' }).expect(200);
      expectContract(res, 'searchSpaceContent');
      expect(res.body.items.map((item: { path: string; rank: number }) => [item.path, item.rank])).toEqual([
        ['widgets', 1],
        ['guide', 2],
      ]);
      expect(res.body.items[0].score).toBeGreaterThan(res.body.items[1].score);
      expect(res.body.items[1].sections[0]).toMatchObject({ id: 'daily-work', title: 'Daily work' });
    });

    it('finds nothing for a word of no page', async () => {
      const res = await search({ query: 'xylophone' }).expect(200);
      expect(res.body).toEqual({ items: [], count: 0 });
    });

    it.each([
      ['a missing query', {}, /^query is required$/],
      ['an empty query', { query: '' }, /^query: should not be empty$/],
      ['a query of 513 characters', { query: 'a'.repeat(513) }, /query: must be shorter than or equal to 512 characters/],
      ['a limit of 0', { query: 'guide', limit: 0 }, /limit/],
    ])('refuses %s with 400', async (_case, query, message) => {
      expectErrorEnvelope(await search(query), 400, message);
    });

    it('accepts a query of 512 characters', async () => {
      await search({ query: 'a'.repeat(512) }).expect(200);
    });

    it('follows the active revision: a second import is searchable, with every page seen once across pages', async () => {
      const res = await t.http
        .post(`/v1/spaces/${space.id}/content/import`)
        .set(...org.admin.auth)
        .send({ url: `${site.origin}/site/`, source: 'website' })
        .expect(201);
      expect(res.body.importedResources).toBe(40);
      const seen: string[] = [];
      const ranks: number[] = [];
      let page: string | undefined;
      do {
        const list = await search({ query: 'alpha bravo', limit: 7, ...(page ? { page } : {}) }).expect(200);
        expectContract(list, 'searchSpaceContent');
        // The generated pages (not its home and section pages) hold the words.
        expect(list.body.count).toBe(38);
        seen.push(...list.body.items.map((item: { id: string }) => item.id));
        ranks.push(...list.body.items.map((item: { rank: number }) => item.rank));
        page = list.body.next?.page;
      } while (page);
      expect(new Set(seen).size).toBe(38);
      expect(ranks).toEqual(Array.from({ length: 38 }, (_, i) => i + 1));
    });
  });

  describe('GET /v1/spaces/{spaceId}/links', () => {
    const links = (query = '', actor?: Actor) => get(`/v1/spaces/${space.id}/links${query}`, actor);

    it('classifies every link of the revision, with stats', async () => {
      const res = await t.http
        .get(`/v1/spaces/${space.id}/revisions/${revision}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body.id).toBe(revision);
      const broken = await links('?status=broken').expect(200);
      expect(broken.body).toEqual({
        count: 1,
        stats: { total: expect.any(Number), broken: { total: 1, changeRequest: 0 } },
        items: [
          {
            status: 'broken',
            relation: 'reference',
            targetReference: { kind: 'url', url: '/missing' },
            locationReferences: [
              {
                kind: 'page',
                ...(await containersOf()),
                page: expect.objectContaining({
                  id: pages.guide,
                  title: 'User Guide',
                  type: 'document',
                  path: 'guide',
                  pages: [],
                  urls: { app: `http://app.quire.test/o/${org.id}/s/${space.id}/guide` },
                }),
              },
            ],
          },
        ],
      });
      expectLinkReferences(broken.body.items);
      expect(broken.body.items[0].locationReferences[0].page.markdown).toContain('/missing');
      const external = await links('?status=ok').expect(200);
      expect(external.body.items.map((item: any) => item.targetReference.url)).toEqual(['https://example.com/help']);
      const inApp = await links('?status=in-app').expect(200);
      const targets = inApp.body.items.map((item: any) => item.targetReference.page?.id ?? item.targetReference.file?.id);
      expect(targets).toEqual(expect.arrayContaining([files['logo.gif'], files['diagram.svg'], pages.guide, pages['guide/install']]));
      const all = await links().expect(200);
      expectLinkReferences(all.body.items);
      expect(all.body.stats.total).toBe(all.body.count);
      expect(all.body.count).toBe(broken.body.count + external.body.count + inApp.body.count);
    });

    it('walks every link once, page by page', async () => {
      const all = await links('?limit=1000').expect(200);
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await links(`?limit=2${page ? `&page=${page}` : ''}`).expect(200);
        seen.push(...res.body.items.map((item: any) => JSON.stringify(item.targetReference)));
        page = res.body.next?.page;
      } while (page);
      expect(seen).toEqual(all.body.items.map((item: any) => JSON.stringify(item.targetReference)));
      expect(new Set(seen).size).toBe(all.body.count);
    });

    it('refuses an unknown status with 400', async () => {
      expectErrorEnvelope(await links('?status=dead'), 400, /status/);
    });
  });

  describe('GET /v1/spaces/{spaceId}/content/page/{pageId}/links', () => {
    it("lists the page's own links, with the page's stats", async () => {
      const res = await get(`/v1/spaces/${space.id}/content/page/${pages['guide/install']}/links`).expect(200);
      expect(res.body.stats).toEqual({ total: 4, broken: { total: 0, changeRequest: 0 } });
      expect(res.body.items.map((item: any) => [item.status, item.targetReference.kind])).toEqual([
        ['in-app', 'file'],
        ['in-app', 'file'],
        ['in-app', 'page'],
        ['ok', 'url'],
      ]);
      for (const item of res.body.items) expect(item.locationReferences.map((location: any) => location.page.id)).toEqual([pages['guide/install']]);
      expectLinkReferences(res.body.items);
      const guide = await get(`/v1/spaces/${space.id}/content/page/${pages.guide}/links?status=broken`).expect(200);
      expect(guide.body).toMatchObject({ count: 1, stats: { total: 2, broken: { total: 1 } } });
    });

    it('answers 404 for an unknown page, 401 and 404 as the space does', async () => {
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/content/page/nope/links`), 404, /Page nope/);
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/content/page/${pages.guide}/links`), 401);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/content/page/${pages.guide}/links`, outsider), 404);
    });
  });

  describe('GET /v1/spaces/{spaceId}/content/files/{fileId}/backlinks', () => {
    it('lists the pages that reference an image', async () => {
      const res = await get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks`).expect(200);
      expect(res.body.count).toBe(2);
      expect(res.body.items.map((item: any) => item.page.path).sort()).toEqual(['acme-documentation', 'guide/install']);
      expect(res.body.items[0]).toEqual({
        kind: 'page',
        ...(await containersOf()),
        page: expect.objectContaining({ id: expect.any(String), title: expect.any(String), path: expect.any(String), urls: { app: expect.any(String) } }),
      });
      for (const item of res.body.items) expectPublicSchema(item, 'ContentLocationPage');
      const one = await get(`/v1/spaces/${space.id}/content/files/${files['diagram.svg']}/backlinks?limit=1`).expect(200);
      expect(one.body).toMatchObject({ count: 1, items: [{ page: { id: pages['guide/install'] } }] });
      expect(one.body).not.toHaveProperty('next');
    });

    it('walks backlinks page by page', async () => {
      const first = await get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks?limit=1`).expect(200);
      const second = await get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks?limit=1&page=${first.body.next.page}`).expect(200);
      expect(second.body).not.toHaveProperty('next');
      expect([first.body.items[0].page.id, second.body.items[0].page.id].sort()).toEqual([pages['acme-documentation'], pages['guide/install']].sort());
    });

    it('answers 404 for an unknown file, 401, 404 and 403 as the space does', async () => {
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/content/files/nope/backlinks`), 404, /File nope/);
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks`), 401);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks`, outsider), 404);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/content/files/${files['logo.gif']}/backlinks`, guest), 403);
    });
  });
});

/**
 * Search with a candidate bound (SEARCH_CANDIDATES) far below the number of matches: the walk
 * still reaches every match once, ranks stay consecutive, the candidates come best first, and
 * `count` is at least the counted bound. Query syntax: phrases, exclusions, stop words.
 */
describe('search at scale (a candidate bound below the matches)', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;
  let space: { id: string };

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', SEARCH_CANDIDATES: '10' });
    // 38 generated pages hold the words alpha … juliet, always in that order (…, juliet, alpha, …).
    site = await serveWebsite({ ...DOCS_SITE, ...generatedSite(40) });
    org = await createOrganization(t);
    ({ space } = await createImportedSpace(t, org, site));
    await t.http
      .post(`/v1/spaces/${space.id}/content/import`)
      .set(...org.admin.auth)
      .send({ url: `${site.origin}/site/`, source: 'website' })
      .expect(201);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const search = (query: Record<string, string | number>) =>
    t.http.get(`/v1/spaces/${space.id}/search?${new URLSearchParams(query as never)}`).set(...org.admin.auth);

  it('walks every match once, with consecutive ranks, best first among the candidates', async () => {
    const seen: string[] = [];
    const ranks: number[] = [];
    const scores: number[] = [];
    let page: string | undefined;
    do {
      const list = await search({ query: 'alpha', limit: 7, ...(page ? { page } : {}) }).expect(200);
      expectContract(list, 'searchSpaceContent');
      // Counted up to the bound (10), so at least 11 once there are more.
      expect(list.body.count).toBeGreaterThanOrEqual(11);
      seen.push(...list.body.items.map((item: { id: string }) => item.id));
      ranks.push(...list.body.items.map((item: { rank: number }) => item.rank));
      scores.push(...list.body.items.map((item: { score: number }) => item.score));
      page = list.body.next?.page;
    } while (page);
    expect(seen).toHaveLength(38);
    expect(new Set(seen).size).toBe(38);
    expect(ranks).toEqual(Array.from({ length: 38 }, (_, i) => i + 1));
    // The first 10 (the bound) are ranked; the others follow by page id.
    expect(scores.slice(0, 10)).toEqual([...scores.slice(0, 10)].sort((a, b) => b - a));
  });

  it('counts exactly below the bound', async () => {
    const res = await search({ query: 'page 7' }).expect(200);
    // "page 7" is on the pages numbered 7 (section 0, page 7) only; every page body says "page N".
    expect(res.body.count).toBe(res.body.items.length);
    expect(res.body.count).toBeLessThanOrEqual(10);
  });

  it('matches a quoted phrase only in its order', async () => {
    expect((await search({ query: '"alpha bravo"' }).expect(200)).body.items.length).toBeGreaterThan(0);
    expect((await search({ query: '"bravo alpha"' }).expect(200)).body).toEqual({ items: [], count: 0 });
  });

  it('excludes a word with -word', async () => {
    // Every page with alpha has bravo too.
    expect((await search({ query: 'alpha -bravo' }).expect(200)).body).toEqual({ items: [], count: 0 });
  });

  it('finds nothing for a query of stop words only', async () => {
    expect((await search({ query: 'the and of' }).expect(200)).body).toEqual({ items: [], count: 0 });
  });

  it('refuses a cursor of another list, or with a rank that is not a count', async () => {
    const cursor = (key: unknown[]) => Buffer.from(JSON.stringify({ l: 'search:score:desc', k: key })).toString('base64url');
    expectErrorEnvelope(await search({ query: 'alpha', page: cursor([0.5, 'x', -1, 10, 0]) }), 400, /page/);
    expectErrorEnvelope(await search({ query: 'alpha', page: cursor([0.5, 'x', 7, 10, 2]) }), 400, /page/);
    expectErrorEnvelope(await search({ query: 'alpha', page: cursor([0.5, 'x']) }), 400, /page/);
  });
});
