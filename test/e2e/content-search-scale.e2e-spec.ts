import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createImportedSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, generatedSite, serveWebsite, Website } from '../support/website-fixture';

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
