import type { Response } from 'supertest';
import { createOrganization, OrgFixture } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { expectErrorEnvelope } from '../support/contract';
import { createReaderSite, ReaderSite } from '../support/published-builders';
import { declaredRoutes, DeclaredRoute } from '../support/route-declarations';
import { sitePath } from '../support/site-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Site-token confinement (issue 26, point 4), generated from the route table: every route declares
 * what a site API token may call (`x-quire-site`). A site token of a published site, issued by
 * `POST /v1/urls/published` for an audience with no claims, is then sent to:
 * - every route that declares `none` → 403 (deny by default; every write is among them);
 * - every declared route with a token of another organization's site → 404 (what it names is not its site's);
 * - every declared route with a token of a site since unpublished → 403;
 * - every `content` route on a space whose condition is false for the token's audience → 404;
 * and the same token reaches the declared routes of its own site (never refused by the guard).
 */

const PUBLISHED_BASE_URL = 'http://readers.test/sites';
const GUARD_REFUSAL = /^A site token cannot call/;

describe('site-token matrix (every route, generated from the x-quire-site declarations)', () => {
  let t: TestApp;
  let routes: DeclaredRoute[];
  let mine: ReaderSite & { org: OrgFixture };
  let other: ReaderSite & { org: OrgFixture };
  let gone: ReaderSite & { org: OrgFixture };
  let token: string;
  let otherToken: string;
  let goneToken: string;
  const counts = { routes: 0, requests: 0 };

  const resolveToken = async (reader: ReaderSite) =>
    (
      await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/` })
        .expect(200)
    ).body.apiToken as string;

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    routes = declaredRoutes(t.app);
    const reader = async () => {
      const org = await createOrganization(t);
      return { ...(await createReaderSite(t, org, PUBLISHED_BASE_URL, 'public')), org };
    };
    [mine, other, gone] = [await reader(), await reader(), await reader()];
    [token, otherToken, goneToken] = [await resolveToken(mine), await resolveToken(other), await resolveToken(gone)];
    await t.http
      .post(`${sitePath(gone.org, gone.site.id)}/unpublish`)
      .set(...gone.org.admin.auth)
      .expect(200);
    // After the token was issued, the `v1` variant is only for staff: this audience no longer sees its space.
    await t.http
      .patch(`${sitePath(mine.org, mine.site.id)}/site-spaces/${mine.siteSpaces.legacy}`)
      .set(...mine.org.admin.auth)
      .send({ condition: 'visitor.claims.staff === true' })
      .expect(200);
  }, 120_000);

  afterAll(async () => {
    console.info(`site-token matrix: ${counts.routes} routes, ${counts.requests} requests`);
    await t?.close();
  });

  const urlOf = (route: DeclaredRoute, reader: ReaderSite & { org: OrgFixture }, spaceId = reader.spaces.guides): string =>
    route.path
      .replace(':organizationId', reader.org.id)
      .replace(':siteId', reader.site.id)
      .replace(':spaceId', spaceId)
      .replace(/:[A-Za-z]+/g, 'probe');

  const call = (route: DeclaredRoute, url: string, bearer: string): Promise<Response> => {
    counts.requests++;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const req = t.http[method](url).set('Authorization', `Bearer ${bearer}`);
    return ['post', 'put', 'patch'].includes(method) ? req.send({}) : req;
  };

  it('every route declares what a site token may call (a route without x-quire-site fails here)', () => {
    const missing = routes.filter((route) => route.site === undefined).map((route) => `${route.method} ${route.path} (${route.operationId})`);
    expect(missing).toEqual([]);
  });

  it('every route that declares none refuses a site token with 403, before anything else', async () => {
    for (const route of routes.filter((candidate) => candidate.site?.site === 'none' && !candidate.isPublic)) {
      counts.routes++;
      const res = await call(route, urlOf(route, mine), token);
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, status: 403 });
      expectErrorEnvelope(res, 403, GUARD_REFUSAL);
    }
  });

  const declared = () => routes.filter((route) => route.site !== undefined && route.site.site !== 'none' && !route.isPublic);

  it('declares the routes the renderer calls in this area', () => {
    const byOperation = new Map(declared().map((route) => [route.operationId, route.site!.site]));
    expect(
      Object.fromEntries(
        [
          'getPublishedContentSite',
          'getSpaceById',
          'trackEventsInSiteById',
          'getLatestOpenAPISpecVersionContent',
          'renderIntegrationUIWithPost',
          'getChangeRequestById',
          'getChangeRequestChanges',
          'getRevisionSemanticChanges',
        ].map((id) => [id, byOperation.get(id)]),
      ),
    ).toEqual({
      getPublishedContentSite: 'site',
      getSpaceById: 'content',
      trackEventsInSiteById: 'site',
      getLatestOpenAPISpecVersionContent: 'site',
      renderIntegrationUIWithPost: 'unscoped',
      getChangeRequestById: 'content',
      getChangeRequestChanges: 'content',
      getRevisionSemanticChanges: 'content',
    });
  });

  it("a token of another organization's site reaches nothing a declared route names here (404)", async () => {
    for (const route of declared().filter((candidate) => candidate.site!.site !== 'unscoped')) {
      const res = await call(route, urlOf(route, mine), otherToken);
      expectErrorEnvelope(res, 404);
    }
  });

  it('a token of a site since unpublished opens no declared route (403)', async () => {
    for (const route of declared()) {
      const res = await call(route, urlOf(route, gone), goneToken);
      expectErrorEnvelope(res, 403, GUARD_REFUSAL);
    }
  });

  it("a content route on a space whose condition is false for the token's audience answers 404", async () => {
    for (const route of declared().filter((candidate) => candidate.site!.site === 'content')) {
      const res = await call(route, urlOf(route, mine, mine.spaces.legacy), token);
      expectErrorEnvelope(res, 404);
    }
  });

  it("the token reaches its own site's declared routes, read-only", async () => {
    const published = await t.http
      .get(`${sitePath(mine.org, mine.site.id)}/published`)
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(published.body.site.id).toBe(mine.site.id);
    // Never an admin's view: share keys and the site's permissions stay a reader's.
    expect(published.body.site.permissions.admin).toBe(false);
    const space = await t.http.get(`/v1/spaces/${mine.spaces.guides}`).set('Authorization', `Bearer ${token}`).expect(200);
    expect(space.body.id).toBe(mine.spaces.guides);
    expect(space.body.permissions.edit).toBe(false);
    // Another site of the same organization is not its site.
    expectErrorEnvelope(await t.http.get(`${sitePath(mine.org, 'another-site')}/published`).set('Authorization', `Bearer ${token}`), 404);
    // No draft: a change request is never read without its preview.
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${mine.spaces.guides}/change-requests/1`).set('Authorization', `Bearer ${token}`), 404);
  });

  it('a tampered or foreign-signed token is unknown (401)', async () => {
    const [header, payload, signature] = token.split('.');
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString());
    forged.site = other.site.id;
    const tampered = `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${mine.spaces.guides}`).set('Authorization', `Bearer ${tampered}`), 401);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${mine.spaces.guides}`).set('Authorization', `Bearer ${none}x`), 401);
  });

  it('a draft is read only through the preview the token was issued for, while the change request is a draft or open', async () => {
    const pages = [{ pageId: 'draft', title: 'Draft', slug: 'draft', markdown: '# Draft\n' }];
    const cr = await createChangeRequest(t, mine.org, mine.spaces.guides, pages);
    const other = await createChangeRequest(t, mine.org, mine.spaces.guides, pages);
    const preview = (
      await t.http
        .post('/v1/urls/published')
        .set(...mine.org.admin.auth)
        .send({ url: `${mine.base}/~/changes/${cr.id}/draft` })
        .expect(200)
    ).body.apiToken as string;
    const read = (path: string, bearer: string) => t.http.get(path).set('Authorization', `Bearer ${bearer}`);
    const space = `/v1/spaces/${mine.spaces.guides}`;
    const live = (await read(space, token).expect(200)).body.revision as string;
    // Expected, row by row: [token, path, status].
    const rows: [string, string, string, number][] = [
      ['preview', preview, `${space}/change-requests/${cr.id}`, 200],
      ['preview', preview, `${space}/revisions/${cr.revision}`, 200],
      ['preview', preview, `${space}/revisions/${live}`, 200],
      // What the change request changes, for the preview's renderer; its reviews stay out of reach.
      ['preview', preview, `${space}/change-requests/${cr.id}/changes`, 200],
      ['preview', preview, `${space}/revisions/${cr.revision}/changes`, 200],
      ['preview', preview, `${space}/change-requests/${cr.id}/reviews`, 403],
      ['preview', preview, `${space}/change-requests/${other.id}/changes`, 404],
      ['preview', preview, `${space}/revisions/${other.revision}/changes`, 404],
      ['plain', token, `${space}/change-requests/${cr.id}/changes`, 404],
      ['preview', preview, `${space}/change-requests/${other.id}`, 404],
      ['preview', preview, `${space}/revisions/${other.revision}`, 404],
      // Another space the site shows: live content only, never the change request.
      ['preview', preview, `/v1/spaces/${mine.spaces.api}/change-requests/${cr.id}`, 404],
      ['plain', token, `${space}/change-requests/${cr.id}`, 404],
      ['plain', token, `${space}/revisions/${cr.revision}`, 404],
      ['other site', otherToken, `${space}/revisions/${cr.revision}`, 404],
    ];
    for (const [name, bearer, path, status] of rows) {
      const res = await read(path, bearer);
      expect({ name, path, status: res.status }).toEqual({ name, path, status });
      if (status !== 200) expectErrorEnvelope(res, status);
    }
    // Archived: the preview token reads nothing of it any more.
    await t.dataSource.query(`UPDATE change_requests SET status = 'archived' WHERE id = $1`, [cr.id]);
    expectErrorEnvelope(await read(`${space}/change-requests/${cr.id}`, preview), 404);
    expectErrorEnvelope(await read(`${space}/revisions/${cr.revision}`, preview), 404);
    expectErrorEnvelope(await read(`${space}/change-requests/${cr.id}/changes`, preview), 404);
    await read(`${space}/revisions/${live}`, preview).expect(200);
  });
});
