import { GitBookAPI } from '@gitbook/api';
import { documentPage, DraftPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { SiteSearchService } from '../../src/modules/sites/search/site-search.service';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { createOrganization, createUser, membershipOf, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { addSection, createSite, sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, serverUrl, TestApp } from '../support/test-app';

/**
 * `searchSiteContent` (issue 26, point 7): scopes, grouping by space, excerpts that show the match,
 * conditions that hide sections and site spaces, unpublished sites, pages of results.
 */
describe('site search', () => {
  let t: TestApp;
  let org: OrgFixture;
  let site: { id: string };
  /** Spaces: guides (default of section Docs), recipes (a variant of Docs), beta (default of section Beta, conditional). */
  const spaces: Record<string, string> = {};
  const siteSpaces: Record<string, string> = {};
  const LONG = `${'Filler words about nothing in particular. '.repeat(40)}The narwhal appears only here, deep in the text. ${'More filler. '.repeat(30)}`;

  const write = (spaceId: string, pages: DraftPage[]) =>
    t.app
      .get(SpaceUnitOfWork)
      .run(spaceId, org.admin.user, 'edit', ({ commitRevision }) =>
        commitRevision((base, em) => t.app.get(RevisionWriter).write({ spaceId, parents: [base], type: 'edits', createdBy: null, pages, files: [] }, em)),
      );
  const page = (i: number, title: string, markdown: string) =>
    documentPage({ pageId: `p${i}`, parentId: null, position: i, title, slug: `page-${i}`, markdown });
  const search = (body: object, query = '', actor = org.admin) =>
    t.http
      .post(`${sitePath(org, site.id)}/search${query}`)
      .set(...actor.auth)
      .send(body);
  const spacesOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((item) => item.id);

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    for (const name of ['guides', 'recipes', 'beta']) spaces[name] = (await createSpace(t, org, { title: name[0].toUpperCase() + name.slice(1) })).id;
    await write(spaces.guides, [
      page(0, 'Quokka basics', 'Everything about the quokka.\n\n## Feeding\n\nA quokka eats leaves.'),
      page(1, 'Setup', `Install it.\n\n## Deep\n\n${LONG}`),
      page(2, 'Other', 'The quokka appears in passing.'),
    ]);
    await write(spaces.recipes, [page(0, 'Quokka stew', 'Never cook a quokka.'), page(1, 'Salad', 'Leaves only.')]);
    await write(spaces.beta, [page(0, 'Beta quokka', 'The quokka beta program.')]);
    site = await createSite(t, org);
    const admin = (method: 'put' | 'post' | 'patch', path: string, body: object) =>
      t.http[method](`${sitePath(org, site.id)}${path}`)
        .set(...org.admin.auth)
        .send(body);
    await admin('put', '/adaptive-schema', {
      jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta tester' } }, additionalProperties: false },
    }).expect(200);
    const docs = await addSection(t, org, site.id, { spaceId: spaces.guides, title: 'Docs' });
    const beta = await addSection(t, org, site.id, { spaceId: spaces.beta, title: 'Beta' });
    await admin('post', '/site-spaces', { spaceId: spaces.recipes, sectionId: docs.id }).expect(201);
    await admin('patch', `/sections/${beta.id}`, { condition: 'visitor.claims.beta === true' }).expect(200);
    await admin('post', '/publish', {}).expect(200);
    const listed = await t.http
      .get(`${sitePath(org, site.id)}/site-spaces?limit=100`)
      .set(...org.admin.auth)
      .expect(200);
    for (const row of listed.body.items) {
      const name = Object.keys(spaces).find((key) => spaces[key] === row.space.id)!;
      siteSpaces[name] = row.id;
    }
  });
  afterAll(() => t.close());

  it('searches every site space with mode all: results grouped by space, best first, ranks across the site, sections with their match', async () => {
    const res = await search({ query: 'quokka', scope: { mode: 'all' } }).expect(200);
    expectContract(res, 'searchSiteContent');
    expect(new Set(spacesOf(res))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const ranked = res.body.items.flatMap((item: { id: string; pages: { rank: number; score: number; title: string }[] }) => item.pages);
    expect(ranked.map((hit: { rank: number }) => hit.rank).sort((a: number, b: number) => a - b)).toEqual([1, 2, 3, 4]);
    expect(res.body.count).toBe(4);
    // A group's score is its best page's; groups come in the order of their best page.
    for (const group of res.body.items) expect(group.score).toBe(Math.max(...group.pages.map((hit: { score: number }) => hit.score)));
    expect(res.body.items.map((group: { pages: { rank: number }[] }) => group.pages[0].rank)).toEqual(
      [...res.body.items.map((group: { pages: { rank: number }[] }) => group.pages[0].rank)].sort((a, b) => a - b),
    );
    const basics = ranked.find((hit: { title: string }) => hit.title === 'Quokka basics');
    expect(basics.sections.map((section: { title: string }) => section.title)).toContain('Feeding');
    expect(res.body.items.find((group: { id: string }) => group.id === spaces.guides).title).toBe('Guides');
  });

  it('shows the part of a long section where the words are', async () => {
    const res = await search({ query: 'narwhal', scope: { mode: 'all' } }).expect(200);
    expectContract(res, 'searchSiteContent');
    const [hit] = res.body.items[0].pages;
    const body: string = hit.sections[0].body;
    expect(body).toMatch(/narwhal/);
    expect(body.startsWith('…')).toBe(true);
    expect(body.length).toBeLessThan(400);
  });

  it('searches the default of each section with scope default, adds the current site space, and restricts to it or to the others', async () => {
    const defaults = await search({ query: 'quokka', scope: { mode: 'default' } }).expect(200);
    expect(new Set(spacesOf(defaults))).toEqual(new Set([spaces.guides, spaces.beta]));
    const withCurrent = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.recipes } }).expect(200);
    expect(new Set(spacesOf(withCurrent))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const only = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.recipes, restrictTo: 'currentSiteSpace' } }).expect(
      200,
    );
    expectContract(only, 'searchSiteContent');
    expect(spacesOf(only)).toEqual([spaces.recipes]);
    const others = await search({ query: 'quokka', scope: { mode: 'default', currentSiteSpace: siteSpaces.guides, restrictTo: 'otherSiteSpaces' } }).expect(
      200,
    );
    expect(spacesOf(others)).toEqual([spaces.beta]);
    const specific = await search({ query: 'quokka', scope: { mode: 'specific', siteSpaceIds: [siteSpaces.recipes] } }).expect(200);
    expect(spacesOf(specific)).toEqual([spaces.recipes]);
    // The deprecated shapes the renderer still sends.
    const current = await search({ query: 'quokka', mode: 'current', siteSpaceId: siteSpaces.recipes }).expect(200);
    expect(new Set(spacesOf(current))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    expect(spacesOf(await search({ query: 'quokka', mode: 'specific', siteSpaceIds: [siteSpaces.beta] }).expect(200))).toEqual([spaces.beta]);
  });

  it('does not search sections or site spaces whose condition is false for the visitor', async () => {
    const service = t.app.get(SiteSearchService);
    const caller = await membershipOf(t, org, org.admin);
    const spacesFor = async (claims: Record<string, unknown>) =>
      new Set((await service.search(caller, site.id, { query: 'quokka', scope: { mode: 'all' } }, { limit: 50 }, claims)).hits.map((hit) => hit.place.spaceId));
    expect(await spacesFor({})).toEqual(new Set([spaces.guides, spaces.recipes]));
    expect(await spacesFor({ beta: false })).toEqual(new Set([spaces.guides, spaces.recipes]));
    expect(await spacesFor({ beta: true })).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    // Named explicitly, a hidden site space is still not searched.
    const named = await service.search(caller, site.id, { query: 'quokka', scope: { mode: 'specific', siteSpaceIds: [siteSpaces.beta] } }, { limit: 50 }, {});
    expect(named.hits).toEqual([]);
  });

  it('walks every hit once, page by page, in rank order', async () => {
    const seen: { id: string; rank: number; score: number }[] = [];
    let page: string | undefined;
    do {
      const res = await search({ query: 'quokka', scope: { mode: 'all' } }, `?limit=2${page ? `&page=${page}` : ''}`).expect(200);
      expectContract(res, 'searchSiteContent');
      for (const group of res.body.items) for (const hit of group.pages) seen.push({ id: `${group.id}/${hit.id}`, rank: hit.rank, score: hit.score });
      page = res.body.next?.page;
    } while (page);
    seen.sort((a, b) => a.rank - b.rank);
    expect(seen.map((hit) => hit.rank)).toEqual([1, 2, 3, 4]);
    expect(new Set(seen.map((hit) => hit.id)).size).toBe(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i].score).toBeLessThanOrEqual(seen[i - 1].score);
  });

  it('walks hits of equal score across spaces without losing or repeating one', async () => {
    const twins = [(await createSpace(t, org, { title: 'Twin A' })).id, (await createSpace(t, org, { title: 'Twin B' })).id];
    for (const id of twins)
      await write(
        id,
        [0, 1, 2].map((i) => page(i, `Wombat ${i}`, 'The wombat digs.')),
      );
    const tied = await createSite(t, org, { spaces: twins });
    await t.http
      .post(`${sitePath(org, tied.id)}/publish`)
      .set(...org.admin.auth)
      .expect(200);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const res = await t.http
          .post(`${sitePath(org, tied.id)}/search?limit=${limit}${next ? `&page=${next}` : ''}`)
          .set(...org.admin.auth)
          .send({ query: 'wombat', scope: { mode: 'all' } })
          .expect(200);
        for (const group of res.body.items) for (const hit of group.pages) seen.push(`${group.id}/${hit.id}`);
        next = res.body.next?.page;
      } while (next);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
    }
  });

  it('answers 404 for an unpublished site, 400 for a bad scope, and outsiders 404', async () => {
    const hidden = await createSite(t, org, { spaces: [spaces.guides] });
    expectErrorEnvelope(
      await t.http
        .post(`${sitePath(org, hidden.id)}/search`)
        .set(...org.admin.auth)
        .send({ query: 'quokka', scope: { mode: 'all' } }),
      404,
    );
    expectErrorEnvelope(await t.http.post(`${sitePath(org, hidden.id)}/search/prewarm`).set(...org.admin.auth), 404);
    for (const body of [
      { query: 'quokka' },
      { query: 'quokka', scope: { mode: 'nope' } },
      { query: 'quokka', scope: { mode: 'default', restrictTo: 'currentSiteSpace' } },
      { query: 'quokka', scope: { mode: 'all' }, mode: 'all' },
      { query: '', scope: { mode: 'all' } },
      { query: 'x'.repeat(513), scope: { mode: 'all' } },
    ]) {
      expectErrorEnvelope(await search(body), 400);
    }
    const outsider = await createUser(t);
    expectErrorEnvelope(await search({ query: 'quokka', scope: { mode: 'all' } }, '', outsider), 404);
    expectErrorEnvelope(await t.http.post(`${sitePath(org, site.id)}/search`).send({ query: 'quokka', scope: { mode: 'all' } }), 401);
  });

  it("answers @gitbook/api's client as the renderer calls it", async () => {
    const endpoint = serverUrl(t);
    // The package's declarations import './client' without an extension, which this project's module resolution does not
    // follow: the client's methods are typed here by what the test calls.
    const api = new GitBookAPI({ endpoint, authToken: org.admin.token }) as unknown as {
      orgs: {
        searchSiteContent(org: string, site: string, body: object): Promise<{ status: number; data: { items: { id: string }[] } }>;
        prewarmSiteSearch(org: string, site: string): Promise<{ status: number }>;
      };
    };
    const res = await api.orgs.searchSiteContent(org.id, site.id, { query: 'quokka', mode: 'current', siteSpaceId: siteSpaces.recipes });
    expect(res.status).toBe(200);
    expect(new Set(res.data.items.map((item) => item.id))).toEqual(new Set([spaces.guides, spaces.recipes, spaces.beta]));
    const prewarm = await api.orgs.prewarmSiteSearch(org.id, site.id);
    expect(prewarm.status).toBe(204);
  });

  it('accepts a prewarm (204)', async () => {
    await t.http
      .post(`${sitePath(org, site.id)}/search/prewarm`)
      .set(...org.admin.auth)
      .expect(204);
  });
});
