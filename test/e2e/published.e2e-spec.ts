import { GitBookAPI } from '@gitbook/api';
import type { Response } from 'supertest';
import { OrgFixture, addMember, createOrganization, createUser, unique } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { ReaderSite, createReaderSite, unsignedJwt, useTestRedirects, visitorJwt, writeTree } from '../support/published-builders';
import { createSiteWithSpaces, sitePath } from '../support/site-builders';
import { TestApp, createTestApp, serverUrl } from '../support/test-app';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../support/database';
import { SnapshotFreshness } from '../../src/modules/published/snapshot-freshness';

/**
 * The resolution matrix (issue 26, points 1 and 2): every visibility × every credential × every kind
 * of path, answered by `POST /v1/urls/published`. The expected answers are written out below from
 * the rules, not derived from the code:
 * - public and unlisted sites open to anyone (a share key or a JWT changes nothing; unlisted carries `noIndex`);
 * - share-link sites open only with an active key of theirs in `?share=` (none, revoked or a JWT → 404);
 * - visitor-auth sites open only with a visitor JWT signed with the site's key, unexpired
 *   (none, a share key, expired, signed with another key, `alg: none` → 401);
 * - once open, the path walks section → variant → page; a moved page and a wildcard redirect
 *   answer redirects (from the SITE_REDIRECTS port), an unknown path 404.
 */

const PUBLISHED_BASE_URL = 'http://readers.test/sites';
const VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
const CREDENTIALS = ['none', 'right key', 'revoked key', 'valid JWT', 'expired JWT', 'wrong key', 'alg none'] as const;
const PATHS = ['root', 'section', 'variant', 'nested page', 'moved page', 'redirect with wildcard', 'unknown path'] as const;
type Visibility = (typeof VISIBILITIES)[number];
type Credential = (typeof CREDENTIALS)[number];
type PathKind = (typeof PATHS)[number];

/** The request path of each kind, below the site's base. */
const PATH_OF: Record<PathKind, string> = {
  root: '',
  section: 'api/reference',
  variant: 'v1/intro',
  'nested page': 'getting-started/install',
  'moved page': 'old-install',
  'redirect with wildcard': 'legacy/install',
  'unknown path': 'no/such/page',
};

type Expected =
  | { status: 200; content: { space: 'guides' | 'legacy' | 'api'; pathname: string; basePath: string; complete?: false } }
  | { status: 200; redirect: string }
  | { status: 401 | 404 };

/** What opening the site gives, by visibility and credential: open, 404 or 401. */
function gate(visibility: Visibility, credential: Credential): 'open' | 404 | 401 {
  if (visibility === 'public' || visibility === 'unlisted') return 'open';
  if (visibility === 'share-link') return credential === 'right key' ? 'open' : 404;
  return credential === 'valid JWT' ? 'open' : 401;
}

/** The answer for an open site, by path. */
function answer(path: PathKind): Expected {
  switch (path) {
    case 'root':
      // The default section's default variant: a section's or a variant's path may still follow.
      return { status: 200, content: { space: 'guides', pathname: '', basePath: '', complete: false } };
    case 'section':
      return { status: 200, content: { space: 'api', pathname: 'reference', basePath: 'api/' } };
    case 'variant':
      return { status: 200, content: { space: 'legacy', pathname: 'intro', basePath: 'v1/' } };
    case 'nested page':
      return { status: 200, content: { space: 'guides', pathname: 'getting-started/install', basePath: '' } };
    case 'moved page':
    case 'redirect with wildcard':
      return { status: 200, redirect: 'getting-started/install' };
    case 'unknown path':
      return { status: 404 };
  }
}

describe('POST /v1/urls/published: the resolution matrix', () => {
  let t: TestApp;
  type Reader = ReaderSite & { org: OrgFixture; key?: string; revoked?: string; privateKey?: string };
  const sites = new Map<Visibility, Reader>();

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    // The stand-in of the redirects port when no module provides it (see test/support/published-builders.ts).
    useTestRedirects(t);
    for (const visibility of VISIBILITIES) {
      // One organization per site: the organization's hostname is part of the site's address.
      const org = await createOrganization(t);
      const reader: Reader = { ...(await createReaderSite(t, org, PUBLISHED_BASE_URL, visibility)), org };
      if (visibility === 'share-link') {
        const path = `${sitePath(org, reader.site.id)}/share-links`;
        reader.key = (
          await t.http
            .post(path)
            .set(...org.admin.auth)
            .send({ name: 'Readers' })
            .expect(201)
        ).body.key;
        const revoked = await t.http
          .post(path)
          .set(...org.admin.auth)
          .send({ name: 'Old' })
          .expect(201);
        await t.http
          .patch(`${path}/${revoked.body.id}`)
          .set(...org.admin.auth)
          .send({ active: false })
          .expect(200);
        reader.revoked = revoked.body.key;
      }
      // Every site has a publishing-auth key: JWTs are signed with it (or, for "wrong key", with another).
      reader.privateKey = (
        await t.http
          .get(`${sitePath(org, reader.site.id)}/publishing/auth`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.privateKey;
      sites.set(visibility, reader);
    }
  });

  afterAll(() => t.close());

  async function credentialOf(reader: { key?: string; revoked?: string; privateKey?: string }, credential: Credential) {
    switch (credential) {
      case 'none':
        return {};
      case 'right key':
        return { share: reader.key ?? 'not-a-share-link-site' };
      case 'revoked key':
        return { share: reader.revoked ?? 'revoked-elsewhere' };
      case 'valid JWT':
        return { jwt: await visitorJwt(reader.privateKey!) };
      case 'expired JWT':
        // Past the documented clock skew (60 s).
        return { jwt: await visitorJwt(reader.privateKey!, {}, -300) };
      case 'wrong key':
        return { jwt: await visitorJwt('another-key-entirely-another-key-entirely') };
      case 'alg none':
        return { jwt: unsignedJwt() };
    }
  }

  for (const visibility of VISIBILITIES) {
    for (const credential of CREDENTIALS) {
      it(`${visibility} × ${credential}`, async () => {
        const reader = sites.get(visibility)!;
        const org = reader.org;
        const { share, jwt } = (await credentialOf(reader, credential)) as { share?: string; jwt?: string };
        const gated = gate(visibility, credential);
        for (const path of PATHS) {
          const search = share ? `?share=${encodeURIComponent(share)}` : '';
          const url = `${reader.base}/${PATH_OF[path]}${search}`;
          const res: Response = await t.http.post('/v1/urls/published').send({ url, ...(jwt ? { visitor: { jwtToken: jwt } } : {}) });
          const expected: Expected = gated === 'open' ? answer(path) : { status: gated };
          const where = `${visibility} × ${credential} × ${path}`;
          expect({ where, status: res.status }).toEqual({ where, status: expected.status });
          if (expected.status !== 200) {
            expectErrorEnvelope(res, expected.status);
            continue;
          }
          expectContract(res, 'resolvePublishedContentByUrl');
          if ('redirect' in expected) {
            expect({ where, body: res.body }).toEqual({ where, body: { target: 'content', redirect: `${reader.base}/${expected.redirect}${search}` } });
            continue;
          }
          const { content } = expected;
          const siteBasePath = `/sites/${reader.orgHostname}/docs/`;
          const section = content.space === 'api' ? reader.sections.api : reader.sections.guides;
          expect({ where, body: { ...res.body, apiToken: typeof res.body.apiToken } }).toEqual({
            where,
            body: {
              organization: org.id,
              site: reader.site.id,
              siteSection: section,
              siteSpace: reader.siteSpaces[content.space],
              space: reader.spaces[content.space],
              revision: expect.any(String),
              pathname: content.pathname,
              basePath: `${siteBasePath}${content.basePath}`,
              siteBasePath,
              canonicalUrl: `http://readers.test${siteBasePath}${content.basePath}${content.pathname}`,
              apiToken: 'string',
              complete: content.complete ?? true,
              ...(visibility === 'share-link' ? { shareKey: reader.key } : {}),
              ...(visibility === 'unlisted' ? { noIndex: true } : {}),
              // Only an authenticated-access session has a visitor context.
              ...(visibility === 'visitor-auth' ? { contextId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } : {}),
            },
          });
        }
      });
    }
  }

  it('answers the revision the space shows, and a site token shaped like the public SiteAPIToken', async () => {
    const reader = sites.get('public')!;
    const org = reader.org;
    const res = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/` })
      .expect(200);
    const space = await t.http
      .get(`/v1/spaces/${reader.spaces.guides}`)
      .set(...org.admin.auth)
      .expect(200);
    expect(res.body.revision).toBe(space.body.revision);
    const [header, payload] = (res.body.apiToken as string)
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expectPublicSchema(payload, 'SiteAPIToken');
    expect(payload).toMatchObject({
      kind: 'site',
      organization: org.id,
      site: reader.site.id,
      siteSection: reader.sections.guides,
      siteSpace: reader.siteSpaces.guides,
      space: reader.spaces.guides,
      claims: { unsigned: {} },
    });
    expect([...payload.spaces].sort()).toEqual(Object.values(reader.spaces).sort());
    // Stable for the day: the same URL gives the same token.
    const again = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/getting-started` })
      .expect(200);
    expect(again.body.apiToken).toBe(res.body.apiToken);
  });

  it('drives through @gitbook/api: resolvePublishedContentByUrl and the deprecated getPublishedContentByUrl', async () => {
    const reader = sites.get('public')!;
    // The client's typings here lack the `urls` group its runtime has: typed to what this test calls.
    const api = new GitBookAPI({ endpoint: serverUrl(t) }) as unknown as {
      urls: { resolvePublishedContentByUrl(body: { url: string }): Promise<{ data: unknown }> };
    };
    const { data } = await api.urls.resolvePublishedContentByUrl({ url: `${reader.base}/api/reference` });
    expect(data).toMatchObject({ space: reader.spaces.api, pathname: 'reference' });
    const old = await t.http
      .get('/v1/urls/published')
      .query({ url: `${reader.base}/v1/intro` })
      .expect(200);
    expectContract(old, 'getPublishedContentByUrl');
    expect(old.body).toMatchObject({ space: reader.spaces.legacy, pathname: 'intro' });
  });

  /**
   * GitBook's renderer resolves several prefixes of a URL at once (the host alone, then one to four
   * path segments) and keeps the first answer that is `complete` (or the full URL's): a prefix that
   * stops where a section's or a variant's path may still follow must say `complete: false`, else the
   * rest of the URL is read as a page path of the default level (`…/docs` + `api/reference` would be
   * the page `api/reference` of the guides). Expected, for the reader site (sections `guides` with
   * variants `v2` default and `v1`, and `api` with one site space):
   */
  it("complete: false where a section's or a variant's path may still follow", async () => {
    const reader = sites.get('public')!;
    const complete = async (url: string) => (await t.http.post('/v1/urls/published').send({ url }).expect(200)).body.complete;
    // The organization's address without the site's basename: the basename may follow.
    expect(await complete(`${PUBLISHED_BASE_URL}/${reader.orgHostname}`)).toBe(false);
    // The site's root: the default section (another could be named), its default variant (v1 could be).
    expect(await complete(`${reader.base}`)).toBe(false);
    expect(await complete(`${reader.base}/`)).toBe(false);
    // A section with one site space: nothing else may follow but a page path.
    expect(await complete(`${reader.base}/api`)).toBe(true);
    // A variant named: complete.
    expect(await complete(`${reader.base}/v1`)).toBe(true);
    // A page path ends the site's own segments.
    expect(await complete(`${reader.base}/intro`)).toBe(true);
    expect(await complete(`${reader.base}/api/reference`)).toBe(true);
    // A site with one space at the root of its own hostname: nothing may follow but a page path.
    const org = await createOrganization(t);
    const { site } = await createSiteWithSpaces(t, org, 1);
    const hostname = `${unique('solo')}.readers.test`.toLowerCase();
    await t.http
      .patch(sitePath(org, site.id))
      .set(...org.admin.auth)
      .send({ hostname })
      .expect(200);
    await t.http
      .post(`${sitePath(org, site.id)}/publish`)
      .set(...org.admin.auth)
      .expect(200);
    const res = await t.http
      .post('/v1/urls/published')
      .send({ url: `https://${hostname}/` })
      .expect(200);
    expectContract(res, 'resolvePublishedContentByUrl');
    expect(res.body).toMatchObject({ pathname: '', basePath: '/', complete: true });
  });

  /**
   * GitBook's renderer drops a URL's query before it resolves the URL, and serves a share link as the
   * first path segment below the site's base (`<site>/<key>/<path>`). Expected: the key's segment
   * opens the site like `?share=`, and belongs to `siteBasePath` and `basePath` (the renderer builds
   * every link from them, so the key stays in each); a revoked key, another site's key or none → 404.
   */
  it('share-link: the key as the first path segment below the site opens it, and stays in the base paths', async () => {
    const reader = sites.get('share-link')!;
    const siteBasePath = `/sites/${reader.orgHostname}/docs/${reader.key}/`;
    const cases: [string, { space: 'guides' | 'api' | 'legacy'; pathname: string; basePath: string; complete: boolean }][] = [
      ['', { space: 'guides', pathname: '', basePath: '', complete: false }],
      ['api/reference', { space: 'api', pathname: 'reference', basePath: 'api/', complete: true }],
      ['v1/intro', { space: 'legacy', pathname: 'intro', basePath: 'v1/', complete: true }],
      ['getting-started/install', { space: 'guides', pathname: 'getting-started/install', basePath: '', complete: true }],
    ];
    for (const [path, expected] of cases) {
      const res = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/${reader.key}/${path}` })
        .expect(200);
      expectContract(res, 'resolvePublishedContentByUrl');
      expect({ path, body: { ...res.body, apiToken: typeof res.body.apiToken, revision: typeof res.body.revision } }).toEqual({
        path,
        body: {
          organization: reader.org.id,
          site: reader.site.id,
          siteSection: expected.space === 'api' ? reader.sections.api : reader.sections.guides,
          siteSpace: reader.siteSpaces[expected.space],
          space: reader.spaces[expected.space],
          revision: 'string',
          pathname: expected.pathname,
          basePath: `${siteBasePath}${expected.basePath}`,
          siteBasePath,
          canonicalUrl: `http://readers.test${siteBasePath}${expected.basePath}${expected.pathname}`,
          apiToken: 'string',
          complete: expected.complete,
          shareKey: reader.key,
        },
      });
    }
    // A redirect below the key keeps the key.
    const moved = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/${reader.key}/old-install` })
      .expect(200);
    expect(moved.body).toEqual({ target: 'content', redirect: `http://readers.test${siteBasePath}getting-started/install` });
    // Revoked, deleted, unknown or no key: 404, as with `?share=`.
    const links = `${sitePath(reader.org, reader.site.id)}/share-links`;
    const deleted = (
      await t.http
        .post(links)
        .set(...reader.org.admin.auth)
        .send({ name: 'Gone' })
        .expect(201)
    ).body;
    await t.http.delete(`${links}/${deleted.id}`).set(...reader.org.admin.auth);
    for (const path of [`${reader.revoked}/intro`, `${deleted.key}/intro`, 'not-a-key/intro', 'intro']) {
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/${path}` }), 404);
    }
    // On a public site a segment is never read as a key: it is a path like any other.
    const open = sites.get('public')!;
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${open.base}/${reader.key}/intro` }), 404);
  });

  /**
   * GitBook's renderer serves files of its own below a site (the sitemap, `robots.txt`, `llms.txt`, a
   * page's markdown at `<page>.md`, feeds, `~gitbook/…` such as the icon and social images), and
   * resolves their URL like a page's first. Expected: they answer the content of their level with the
   * path as given; a page's markdown or feed only for a page that exists; other unknown paths stay 404.
   */
  it("the renderer's own routes answer the content of their level", async () => {
    const reader = sites.get('public')!;
    const resolve = (path: string) => t.http.post('/v1/urls/published').send({ url: `${reader.base}/${path}` });
    const served: [string, 'guides' | 'api'][] = [
      ['sitemap.xml', 'guides'],
      ['sitemap-pages.xml', 'guides'],
      ['robots.txt', 'guides'],
      ['llms.txt', 'guides'],
      ['llms-full.txt', 'guides'],
      ['llms-full.txt/2', 'guides'],
      ['~gitbook/icon', 'guides'],
      ['~gitbook/ogimage/some-page-id', 'guides'],
      ['intro.md', 'guides'],
      ['getting-started/install.md', 'guides'],
      ['rss.xml', 'guides'],
      ['getting-started/rss.xml', 'guides'],
      ['api/llms.txt', 'api'],
      ['api/reference.md', 'api'],
    ];
    for (const [path, space] of served) {
      const res = await resolve(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expectContract(res, 'resolvePublishedContentByUrl');
      const pathname = space === 'api' ? path.slice('api/'.length) : path;
      expect({ path, body: res.body }).toMatchObject({ path, body: { space: reader.spaces[space], pathname, complete: true } });
    }
    for (const path of ['no-such-page.md', 'no/such/rss.xml', '~other/route', 'sitemap.xml/more', 'no/such/page']) {
      const res = await resolve(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expectErrorEnvelope(res, 404);
    }
  });

  /**
   * The renderer links sections, variants and search results from the `urls.published` of the site's
   * structure (`getPublishedContentSite`). Expected: on a site's own hostname each of them resolves to
   * its own section and site space, with no redirect (the default section and a level's default
   * variant have no segment of their own; the hostname has no basename).
   */
  it("the structure's urls.published resolve to their own section and site space, without a redirect", async () => {
    const org = await createOrganization(t);
    const reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'public');
    const hostname = `${unique('docs')}.readers.test`.toLowerCase();
    await t.http
      .patch(sitePath(org, reader.site.id))
      .set(...org.admin.auth)
      .send({ hostname })
      .expect(200);
    const token = (
      await t.http
        .post('/v1/urls/published')
        .send({ url: `https://${hostname}/` })
        .expect(200)
    ).body.apiToken;
    const res = await t.http
      .get(`${sitePath(org, reader.site.id)}/published`)
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expectContract(res, 'getPublishedContentSite');
    const levels: { url: string; section: string; siteSpace?: string }[] = [];
    for (const section of res.body.structure.structure) {
      levels.push({ url: section.urls.published, section: section.id });
      for (const siteSpace of section.siteSpaces) levels.push({ url: siteSpace.urls.published, section: section.id, siteSpace: siteSpace.id });
    }
    expect(levels.map((level) => level.url)).toEqual([
      `https://${hostname}`,
      `https://${hostname}`,
      `https://${hostname}/v1`,
      `https://${hostname}/api`,
      `https://${hostname}/api`,
    ]);
    for (const level of levels) {
      const resolved = await t.http.post('/v1/urls/published').send({ url: level.url }).expect(200);
      expect({ url: level.url, body: resolved.body }).toMatchObject({
        url: level.url,
        body: { siteSection: level.section, ...(level.siteSpace ? { siteSpace: level.siteSpace } : {}), pathname: '' },
      });
    }
  });

  it('redirects a level named by its default to the level itself (section and variant defaults)', async () => {
    const reader = sites.get('public')!;
    for (const [path, to] of [
      ['guides/intro', 'intro'],
      ['v2/getting-started', 'getting-started'],
      ['guides/v2/intro', 'v2/intro'],
    ]) {
      const res = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/${path}` })
        .expect(200);
      expect(res.body).toEqual({ target: 'content', redirect: `${reader.base}/${to}` });
    }
    const external = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/out` })
      .expect(200);
    expect(external.body).toEqual({ target: 'external', site: reader.site.id, redirect: 'https://example.com/elsewhere' });
  });

  it('visitor-auth: a visitor without a token, or with redirectOnError, goes to the fallback URL with the location; the jwt_token query parameter is read', async () => {
    const reader = sites.get('visitor-auth')!;
    const org = reader.org;
    const path = `${sitePath(org, reader.site.id)}/publishing/auth`;
    await t.http
      .patch(path)
      .set(...org.admin.auth)
      .send({ fallbackURL: 'https://auth.example.com/login?tenant=acme' })
      .expect(200);
    // The redirect carries where the visitor was going, below the site (`location`), beside the fallback URL's own query.
    for (const [jwt, below, location] of [
      [undefined, '', '/'],
      [await visitorJwt(reader.privateKey!, {}, -300), 'v1/intro', '/v1/intro'],
      [unsignedJwt(), 'getting-started/install?x=1', '/getting-started/install'],
    ] as const) {
      const res = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/${below}`, redirectOnError: true, ...(jwt ? { visitor: { jwtToken: jwt } } : {}) })
        .expect(200);
      expectContract(res, 'resolvePublishedContentByUrl');
      expect(res.body).toEqual({
        target: 'external',
        site: reader.site.id,
        redirect: `https://auth.example.com/login?tenant=acme&location=${encodeURIComponent(location)}`,
      });
    }
    // No token at all: sent to log in even without redirectOnError (the renderer asks it only for a token from
    // its cookie); an invalid token without it: 401 (a token fresh from the backend that fails must not loop).
    const first = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/v1/intro` })
      .expect(200);
    expect(first.body).toEqual({ target: 'external', site: reader.site.id, redirect: `https://auth.example.com/login?tenant=acme&location=%2Fv1%2Fintro` });
    for (const bad of [await visitorJwt(reader.privateKey!, {}, -300), unsignedJwt()]) {
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/`, visitor: { jwtToken: bad } }), 401);
    }
    const jwt = await visitorJwt(reader.privateKey!);
    const viaQuery = await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/v1/intro?jwt_token=${jwt}` })
      .expect(200);
    expect(viaQuery.body.space).toBe(reader.spaces.legacy);
    // A JWT within the clock skew of its expiry still opens; a regenerated key shuts the old JWTs out.
    const justExpired = await visitorJwt(reader.privateKey!, {}, -20);
    await t.http
      .post('/v1/urls/published')
      .send({ url: `${reader.base}/`, visitor: { jwtToken: justExpired } })
      .expect(200);
    await t.http
      .post(`${path}/regenerate`)
      .set(...org.admin.auth)
      .expect(200);
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/`, visitor: { jwtToken: jwt } }), 401);
    await t.http
      .patch(path)
      .set(...org.admin.auth)
      .send({ fallbackURL: null })
      .expect(200);
  });

  it('404s unknown hosts, unpublished sites, and refuses bad input with 400', async () => {
    const reader = sites.get('public')!;
    const org = reader.org;
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: 'http://nowhere.test/docs' }), 404);
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${PUBLISHED_BASE_URL}/no-such-org/docs/` }), 404);
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: 'not a url' }), 400);
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({}), 400);
    expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/`, visitor: { jwtToken: 42 } }), 400);
    await t.http
      .post(`${sitePath(org, reader.site.id)}/unpublish`)
      .set(...org.admin.auth)
      .expect(200);
    try {
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/` }), 404);
    } finally {
      await t.http
        .post(`${sitePath(org, reader.site.id)}/publish`)
        .set(...org.admin.auth)
        .expect(200);
    }
  });

  /**
   * Change-request previews (`…/~/changes/{id}/…`). Who may see one, as stated here: a signed-in user
   * who can view the change request's space (a member, through the app), or a site token issued for
   * that very preview (the renderer re-resolving with the token it holds). Anyone else (anonymous, an
   * outsider, a plain site token, a preview token of another change request) gets the 404 of an unknown
   * URL. Only a `draft` or `open` change request of the space the URL's level shows has a preview. The
   * site's visibility applies first, to everyone.
   */
  describe('change-request previews', () => {
    type Caller = 'anonymous' | 'admin' | 'reader member' | 'outsider' | 'plain site token' | 'preview token' | 'other preview token';
    const auth = new Map<Caller, [string, string] | undefined>();
    let reader: Reader;
    let cr: { id: string; revision: string };
    let other: { id: string; revision: string };
    let apiCr: { id: string; revision: string };
    let archived: { id: string };

    const resolve = (caller: Caller, path: string, base = reader.base) => {
      const req = t.http.post('/v1/urls/published');
      const header = auth.get(caller);
      return (header ? req.set(...header) : req).send({ url: `${base}/${path}` });
    };
    const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];

    beforeAll(async () => {
      reader = sites.get('public')!;
      const org = reader.org;
      const draft = [
        { pageId: 'intro-draft', title: 'Intro', slug: 'intro', markdown: '# Intro, revised\n' },
        { pageId: 'draft-page', title: 'Draft page', slug: 'draft-page', markdown: '# Not published yet\n' },
      ];
      cr = await createChangeRequest(t, org, reader.spaces.guides, draft);
      other = await createChangeRequest(t, org, reader.spaces.guides, draft);
      apiCr = await createChangeRequest(t, org, reader.spaces.api, [{ pageId: 'ref2', title: 'Reference', slug: 'reference', markdown: '# Reference 2\n' }]);
      archived = await createChangeRequest(t, org, reader.spaces.guides, draft);
      await t.dataSource.query(`UPDATE change_requests SET status = 'archived' WHERE id = $1`, [archived.id]);
      auth.set('anonymous', undefined);
      auth.set('admin', org.admin.auth);
      auth.set('reader member', (await addMember(t, org, 'read')).auth);
      auth.set('outsider', (await createUser(t)).auth);
      auth.set('plain site token', bearer((await resolve('anonymous', '').expect(200)).body.apiToken));
      auth.set('preview token', bearer((await resolve('admin', `~/changes/${cr.id}/`).expect(200)).body.apiToken));
      auth.set('other preview token', bearer((await resolve('admin', `~/changes/${other.id}/`).expect(200)).body.apiToken));
    });

    type Row = [Caller, () => string, { space: 'guides' | 'api'; cr: () => { id: string; revision: string }; pathname: string; basePath: () => string } | 404];
    const ROWS: Row[] = [
      ['anonymous', () => `~/changes/${cr.id}/draft-page`, 404],
      ['admin', () => `~/changes/${cr.id}/draft-page`, { space: 'guides', cr: () => cr, pathname: 'draft-page', basePath: () => `~/changes/${cr.id}/` }],
      ['admin', () => `~/changes/${cr.id}`, { space: 'guides', cr: () => cr, pathname: '', basePath: () => `~/changes/${cr.id}/` }],
      ['reader member', () => `~/changes/${cr.id}/intro`, { space: 'guides', cr: () => cr, pathname: 'intro', basePath: () => `~/changes/${cr.id}/` }],
      ['outsider', () => `~/changes/${cr.id}/draft-page`, 404],
      ['plain site token', () => `~/changes/${cr.id}/draft-page`, 404],
      [
        'preview token',
        () => `~/changes/${cr.id}/draft-page`,
        { space: 'guides', cr: () => cr, pathname: 'draft-page', basePath: () => `~/changes/${cr.id}/` },
      ],
      ['preview token', () => `~/changes/${other.id}/draft-page`, 404],
      ['other preview token', () => `~/changes/${cr.id}/draft-page`, 404],
      // The draft page is not live: without the preview, it is an unknown path.
      ['admin', () => 'draft-page', 404],
      ['admin', () => `~/changes/${cr.id}/no/such/page`, 404],
      ['admin', () => `~/changes/${archived.id}/intro`, 404],
      ['admin', () => `~/changes/no-such-change-request/intro`, 404],
      // A change request of another space: not under this level, under its own.
      ['admin', () => `~/changes/${apiCr.id}/reference`, 404],
      [
        'admin',
        () => `api/~/changes/${apiCr.id}/reference`,
        { space: 'api', cr: () => apiCr, pathname: 'reference', basePath: () => `api/~/changes/${apiCr.id}/` },
      ],
      ['admin', () => `v1/~/changes/${cr.id}/intro`, 404],
    ];

    it('resolves a preview only for the callers allowed to see it, to the change request head', async () => {
      for (const [caller, pathOf, expected] of ROWS) {
        const path = pathOf();
        const where = `${caller} × ${path}`;
        const res = await resolve(caller, path);
        expect({ where, status: res.status }).toEqual({ where, status: expected === 404 ? 404 : 200 });
        if (expected === 404) {
          expectErrorEnvelope(res, 404);
          continue;
        }
        expectContract(res, 'resolvePublishedContentByUrl');
        const siteBasePath = `/sites/${reader.orgHostname}/docs/`;
        const { id, revision } = expected.cr();
        expect({ where, body: { ...res.body, apiToken: typeof res.body.apiToken } }).toEqual({
          where,
          body: {
            organization: reader.org.id,
            site: reader.site.id,
            siteSection: reader.sections[expected.space],
            siteSpace: reader.siteSpaces[expected.space],
            space: reader.spaces[expected.space],
            revision,
            changeRequest: id,
            preview: true,
            pathname: expected.pathname,
            basePath: `${siteBasePath}${expected.basePath()}`,
            siteBasePath,
            canonicalUrl: `http://readers.test${siteBasePath}${expected.basePath()}${expected.pathname}`,
            apiToken: 'string',
            complete: true,
          },
        });
        const payload = JSON.parse(Buffer.from(res.body.apiToken.split('.')[1], 'base64url').toString());
        expectPublicSchema(payload, 'SiteAPIToken');
        expect({ where, draft: payload.draft, changeRequest: payload.changeRequest }).toEqual({ where, draft: true, changeRequest: id });
      }
    });

    it("the site's visibility applies to previews too", async () => {
      const gated = sites.get('visitor-auth')!;
      const crOf = await createChangeRequest(t, gated.org, gated.spaces.guides);
      const url = `${gated.base}/~/changes/${crOf.id}/intro`;
      expectErrorEnvelope(
        await t.http
          .post('/v1/urls/published')
          .set(...gated.org.admin.auth)
          .send({ url }),
        401,
      );
      // The key as it is now (an earlier test regenerates it).
      const key = (
        await t.http
          .get(`${sitePath(gated.org, gated.site.id)}/publishing/auth`)
          .set(...gated.org.admin.auth)
          .expect(200)
      ).body.privateKey;
      const jwt = await visitorJwt(key);
      const res = await t.http
        .post('/v1/urls/published')
        .set(...gated.org.admin.auth)
        .send({ url, visitor: { jwtToken: jwt } })
        .expect(200);
      expect(res.body).toMatchObject({ changeRequest: crOf.id, revision: crOf.revision, preview: true });
      // The same visitor without a member's token: no preview.
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url, visitor: { jwtToken: jwt } }), 404);
    });
  });
});

/**
 * Publishing auth (issue 26, point 3), visitors' claims deciding what a site shows (point 2), and
 * conditions as expressions (point 10).
 */

describe('publishing auth, visitor claims and conditions', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: ReaderSite;
  let authPath: string;

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'visitor-auth');
    authPath = `${sitePath(org, reader.site.id)}/publishing/auth`;
  });

  afterAll(() => t.close());

  describe('getSitePublishingAuthById, updateSitePublishingAuthById, regenerateSitePublishingAuthById', () => {
    it('requires authentication, and is for admins only', async () => {
      expectErrorEnvelope(await t.http.get(authPath), 401);
      const editor = await addMember(t, org, 'edit');
      expectErrorEnvelope(await t.http.get(authPath).set(...editor.auth), 403);
      expectErrorEnvelope(
        await t.http
          .patch(authPath)
          .set(...editor.auth)
          .send({ fallbackURL: null }),
        403,
      );
      expectErrorEnvelope(await t.http.post(`${authPath}/regenerate`).set(...editor.auth), 403);
      const outsider = await createOrganization(t);
      expectErrorEnvelope(await t.http.get(authPath).set(...outsider.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(`${sitePath(org, 'no-such-site')}/publishing/auth`).set(...org.admin.auth), 404);
    });

    it('answers the public SitePublishingAuth; updates; regenerates the key', async () => {
      const first = await t.http
        .get(authPath)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(first, 'getSitePublishingAuthById');
      expect(first.body).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.stringMatching(/^[\w-]{43}$/) });
      const again = await t.http
        .get(authPath)
        .set(...org.admin.auth)
        .expect(200);
      expect(again.body.privateKey).toBe(first.body.privateKey);

      const updated = await t.http
        .patch(authPath)
        .set(...org.admin.auth)
        .send({ backend: 'custom', fallbackURL: 'https://auth.example.com/login', logoutURL: 'https://auth.example.com/logout' })
        .expect(200);
      expectContract(updated, 'updateSitePublishingAuthById');
      expect(updated.body).toEqual({
        object: 'publishing-auth',
        backend: 'custom',
        privateKey: first.body.privateKey,
        fallbackURL: 'https://auth.example.com/login',
        logoutURL: 'https://auth.example.com/logout',
      });
      // The published profile presents them as the site's `urls.login` and `urls.logout` (the renderer's login and logout routes).
      const siteUrls = async () => {
        const profile = await t.http
          .get(`${sitePath(org, reader.site.id)}/published`)
          .set(...org.admin.auth)
          .expect(200);
        expectContract(profile, 'getPublishedContentSite');
        return profile.body.site.urls;
      };
      expect(await siteUrls()).toMatchObject({ login: 'https://auth.example.com/login', logout: 'https://auth.example.com/logout' });
      const cleared = await t.http
        .patch(authPath)
        .set(...org.admin.auth)
        .send({ logoutURL: null })
        .expect(200);
      expect(cleared.body.logoutURL).toBeUndefined();
      expect(cleared.body.fallbackURL).toBe('https://auth.example.com/login');
      expect((await siteUrls()).logout).toBeUndefined();

      const regenerated = await t.http
        .post(`${authPath}/regenerate`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(regenerated, 'regenerateSitePublishingAuthById');
      expect(regenerated.body.privateKey).not.toBe(first.body.privateKey);
      expect(regenerated.body.fallbackURL).toBe('https://auth.example.com/login');
    });

    it('refuses bad input with 400 and changes nothing', async () => {
      const before = (
        await t.http
          .get(authPath)
          .set(...org.admin.auth)
          .expect(200)
      ).body;
      for (const body of [
        { backend: 'saml' },
        { fallbackURL: 'not a url' },
        { logoutURL: 42 },
        { privateKey: 'mine' },
        { fallbackURL: 'ftp://x.example.com' },
      ]) {
        expectErrorEnvelope(
          await t.http
            .patch(authPath)
            .set(...org.admin.auth)
            .send(body),
          400,
        );
      }
      expect(
        (
          await t.http
            .get(authPath)
            .set(...org.admin.auth)
            .expect(200)
        ).body,
      ).toEqual(before);
    });

    it('keeps the key encrypted at rest', async () => {
      const { privateKey } = (
        await t.http
          .get(authPath)
          .set(...org.admin.auth)
          .expect(200)
      ).body;
      const [row] = await t.dataSource.query(`SELECT private_key FROM site_publishing_auth WHERE site_id = $1`, [reader.site.id]);
      expect(row.private_key).toMatch(/^enc:v1:/);
      expect(row.private_key).not.toContain(privateKey);
    });
  });

  describe("visitors' claims decide what is shown (signed claims, and the unsigned claims the schema declares)", () => {
    let key: string;
    const resolve = (path: string, visitor: object) => t.http.post('/v1/urls/published').send({ url: `${reader.base}/${path}`, visitor });

    beforeAll(async () => {
      await t.http
        .put(`${sitePath(org, reader.site.id)}/adaptive-schema`)
        .set(...org.admin.auth)
        .send({
          jsonSchema: {
            type: 'object',
            properties: {
              staff: { type: 'boolean', description: 'Staff' },
              unsigned: {
                type: 'object',
                description: 'Unsigned claims of the site visitor.',
                properties: { preview: { type: 'boolean', description: 'Preview' } },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
        })
        .expect(200);
      // The API section only for staff (signed); the v1 variant only with the unsigned `preview` claim.
      await t.http
        .patch(`${sitePath(org, reader.site.id)}/sections/${reader.sections.api}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.staff === true' })
        .expect(200);
      await t.http
        .patch(`${sitePath(org, reader.site.id)}/site-spaces/${reader.siteSpaces.legacy}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.unsigned.preview' })
        .expect(200);
      key = (
        await t.http
          .get(`${sitePath(org, reader.site.id)}/publishing/auth`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.privateKey;
    });

    it('a false condition hides a section or a variant; a true one shows it', async () => {
      const plain = { jwtToken: await visitorJwt(key, { staff: false }) };
      const staff = { jwtToken: await visitorJwt(key, { staff: true }) };
      expectErrorEnvelope(await resolve('api/reference', plain), 404);
      expect((await resolve('api/reference', staff).expect(200)).body.space).toBe(reader.spaces.api);
      expectErrorEnvelope(await resolve('v1/intro', plain), 404);
      expect((await resolve('v1/intro', { ...plain, unsignedClaims: { preview: true } }).expect(200)).body.space).toBe(reader.spaces.legacy);
      // A signed claim cannot be smuggled in unsigned, and unsigned claims the schema does not declare are dropped.
      expectErrorEnvelope(await resolve('api/reference', { ...plain, unsignedClaims: { staff: true } }), 404);
      // The token carries the audience: the spaces it may read, and its claims.
      const token = (await resolve('', { ...staff, unsignedClaims: { preview: true, other: 1 } }).expect(200)).body.apiToken as string;
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      expect(payload.claims).toEqual({ staff: true, unsigned: { preview: true } });
      expect([...payload.spaces].sort()).toEqual([reader.spaces.api, reader.spaces.guides, reader.spaces.legacy].sort());
    });
  });

  describe('conditions are expressions (point 10)', () => {
    it('accepts a condition naming a claim the schema does not declare; refuses only one that does not parse', async () => {
      const path = `${sitePath(org, reader.site.id)}/site-spaces/${reader.siteSpaces.legacy}`;
      const set = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.plan === "enterprise"' })
        .expect(200);
      expect(set.body.condition).toBe('visitor.claims.plan === "enterprise"');
      const section = `${sitePath(org, reader.site.id)}/sections/${reader.sections.api}`;
      await t.http
        .patch(section)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.undeclared || visitor.claims.unsigned.other' })
        .expect(200);
      for (const condition of ['visitor.claims.plan ===', '(((', 'a b']) {
        expectErrorEnvelope(
          await t.http
            .patch(path)
            .set(...org.admin.auth)
            .send({ condition }),
          400,
          /syntax error/,
        );
        expectErrorEnvelope(
          await t.http
            .patch(section)
            .set(...org.admin.auth)
            .send({ condition }),
          400,
          /syntax error/,
        );
      }
      // Evaluated: the undeclared claim is absent for this visitor (hidden), present in a JWT that carries it (shown).
      const key = (
        await t.http
          .get(`${sitePath(org, reader.site.id)}/publishing/auth`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.privateKey;
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/v1/intro`, visitor: { jwtToken: await visitorJwt(key) } }), 404);
      const enterprise = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/v1/intro`, visitor: { jwtToken: await visitorJwt(key, { plan: 'enterprise' }) } })
        .expect(200);
      expect(enterprise.body.space).toBe(reader.spaces.legacy);
    });
  });
});

/**
 * What a site API token reads of its own site (issue 26, point 4): exactly what the site shows the
 * token's visitor audience. A visitor-auth site hides the `api` section and the `v1` variant from
 * visitors without claims; their tokens, issued by `POST /v1/urls/published`, never see the titles or
 * ids of what is hidden (`getPublishedContentSite`, `getSpaceById`, `searchSiteContent`), while a
 * staff visitor's token sees all of it.
 */

describe("a site token reads its site as the token's audience sees it", () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: ReaderSite;
  let path: string;
  let key: string;
  let visitor: string;
  let staff: string;

  const tokenFor = async (claims: Record<string, unknown>) =>
    (
      await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, claims) } })
        .expect(200)
    ).body.apiToken as string;
  const bearer = (token: string) => ['Authorization', `Bearer ${token}`] as [string, string];

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'visitor-auth');
    path = sitePath(org, reader.site.id);
    key = (
      await t.http
        .get(`${path}/publishing/auth`)
        .set(...org.admin.auth)
        .expect(200)
    ).body.privateKey;
    await t.http
      .patch(`${path}/sections/${reader.sections.api}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff === true' })
      .expect(200);
    await t.http
      .patch(`${path}/site-spaces/${reader.siteSpaces.legacy}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff === true' })
      .expect(200);
    visitor = await tokenFor({});
    staff = await tokenFor({ staff: true });
  });

  afterAll(() => t.close());

  it('contextId: the same for visitors whose claims the conditions read alike, another when those claims change, never the claims', async () => {
    const contextOf = async (claims: Record<string, unknown>) => {
      const res = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, claims) } })
        .expect(200);
      expectContract(res, 'resolvePublishedContentByUrl');
      return res.body.contextId as string;
    };
    const a = await contextOf({ staff: true, email: 'a@example.com' });
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toContain('example');
    // `email` is read by no condition: the same context. `staff` is: another one.
    expect(await contextOf({ staff: true, email: 'b@example.com' })).toBe(a);
    expect(await contextOf({ staff: false, email: 'a@example.com' })).not.toBe(a);
    expect(await contextOf({})).toBe(await contextOf({ team: 'x' }));
  });

  const hidden = () => [reader.sections.api, reader.siteSpaces.legacy, reader.spaces.api, reader.spaces.legacy, '"API"', '"Legacy"'];

  it('getPublishedContentSite: the structure, customizations and count hold only what the audience is shown', async () => {
    const res = await t.http
      .get(`${path}/published`)
      .set(...bearer(visitor))
      .expect(200);
    expectContract(res, 'getPublishedContentSite');
    expect(res.body.structure.type).toBe('sections');
    expect(res.body.structure.structure.map((section: any) => [section.id, section.default])).toEqual([[reader.sections.guides, true]]);
    expect(res.body.structure.structure[0].siteSpaces.map((row: any) => [row.id, row.default])).toEqual([[reader.siteSpaces.guides, true]]);
    expect(Object.keys(res.body.customizations.siteSpaces)).toEqual([reader.siteSpaces.guides]);
    expect(res.body.site.siteSpaces).toBe(1);
    const text = JSON.stringify(res.body);
    for (const secret of hidden()) expect([secret, text.includes(secret)]).toEqual([secret, false]);

    const all = await t.http
      .get(`${path}/published`)
      .set(...bearer(staff))
      .expect(200);
    expectContract(all, 'getPublishedContentSite');
    expect(all.body.structure.structure.map((section: any) => section.id)).toEqual([reader.sections.guides, reader.sections.api]);
    expect(all.body.structure.structure[0].siteSpaces.map((row: any) => row.id)).toEqual([reader.siteSpaces.guides, reader.siteSpaces.legacy]);
    expect(Object.keys(all.body.customizations.siteSpaces).sort()).toEqual(Object.values(reader.siteSpaces).sort());
    expect(all.body.site.siteSpaces).toBe(3);

    // A member still sees the whole structure, conditions and all.
    const member = await t.http
      .get(`${path}/published`)
      .set(...org.admin.auth)
      .expect(200);
    expect(member.body.structure.structure.map((section: any) => section.id)).toEqual([reader.sections.guides, reader.sections.api]);
  });

  it('a hidden default gives way to the first item shown, as resolution serves it', async () => {
    await t.http
      .patch(`${path}/sections/${reader.sections.guides}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff !== true' })
      .expect(200);
    try {
      const res = await t.http
        .get(`${path}/published`)
        .set(...bearer(staff))
        .expect(200);
      expectContract(res, 'getPublishedContentSite');
      expect(res.body.structure.structure.map((section: any) => [section.id, section.default])).toEqual([[reader.sections.api, true]]);
      // The root serves the same section: resolution and the structure agree.
      const root = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, { staff: true }) } })
        .expect(200);
      expect(root.body.siteSection).toBe(reader.sections.api);

      // A hidden default variant: the first variant shown stands in as the level's default.
      await t.http
        .patch(`${path}/sections/${reader.sections.guides}`)
        .set(...org.admin.auth)
        .send({ condition: null })
        .expect(200);
      await t.http
        .patch(`${path}/site-spaces/${reader.siteSpaces.guides}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.beta !== true' })
        .expect(200);
      const beta = await tokenFor({ beta: true, staff: true });
      const variants = await t.http
        .get(`${path}/published`)
        .set(...bearer(beta))
        .expect(200);
      expectContract(variants, 'getPublishedContentSite');
      const [guides] = variants.body.structure.structure;
      expect(guides.siteSpaces.map((row: any) => [row.id, row.default])).toEqual([[reader.siteSpaces.legacy, true]]);
      expect(JSON.stringify(variants.body)).not.toContain(reader.siteSpaces.guides);
    } finally {
      for (const [kind, id] of [
        ['sections', reader.sections.guides],
        ['site-spaces', reader.siteSpaces.guides],
      ]) {
        await t.http
          .patch(`${path}/${kind}/${id}`)
          .set(...org.admin.auth)
          .send({ condition: null })
          .expect(200);
      }
    }
  });

  it('getSpaceById of a space the audience is not shown is unknown (404); shown, it answers', async () => {
    for (const spaceId of [reader.spaces.api, reader.spaces.legacy]) {
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${spaceId}`).set(...bearer(visitor)), 404);
      expectContract(
        await t.http
          .get(`/v1/spaces/${spaceId}`)
          .set(...bearer(staff))
          .expect(200),
        'getSpaceById',
      );
    }
    expectContract(
      await t.http
        .get(`/v1/spaces/${reader.spaces.guides}`)
        .set(...bearer(visitor))
        .expect(200),
      'getSpaceById',
    );
  });

  it('searchSiteContent finds nothing in what the audience is not shown', async () => {
    const search = (token: string, query: string) =>
      t.http
        .post(`${path}/search`)
        .set(...bearer(token))
        .send({ query, scope: { mode: 'all' } })
        .expect(200);
    const spacesOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((group) => group.id).sort();
    expect(spacesOf(await search(visitor, 'reference'))).toEqual([]);
    expect(spacesOf(await search(staff, 'reference'))).toEqual([reader.spaces.api]);
    expect(spacesOf(await search(visitor, 'intro'))).toEqual([reader.spaces.guides]);
    expect(spacesOf(await search(staff, 'intro'))).toEqual([reader.spaces.guides, reader.spaces.legacy].sort());
  });

  it("getUserById: a reader sees the public profile of the site's organization's people, never an e-mail; anyone else is unknown", async () => {
    const member = await addMember(t, org, 'read');
    const outsider = await createUser(t);
    const elsewhere = await createOrganization(t);
    for (const user of [org.admin.user, member.user]) {
      const res = await t.http
        .get(`/v1/users/${user.id}`)
        .set(...bearer(visitor))
        .expect(200);
      expectContract(res, 'getUserById');
      expect(res.body).toEqual({
        object: 'user',
        id: user.id,
        displayName: user.displayName,
        ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
        urls: { location: expect.stringMatching(new RegExp(`/v1/users/${user.id}$`)) },
      });
      // The same profile to a member of the organization carries the e-mail: the site token's lacks it on purpose.
      const asMember = await t.http
        .get(`/v1/users/${user.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(asMember.body.email).toBe(user.email);
    }
    for (const userId of [outsider.user.id, elsewhere.admin.user.id, 'no-such-user']) {
      expectErrorEnvelope(await t.http.get(`/v1/users/${userId}`).set(...bearer(visitor)), 404);
    }
  });

  it("redirects lead a site token's audience only to what it is shown (getSiteRedirectBySource, and URL resolution)", async () => {
    const destinations: Record<string, object> = {
      '/to-api': { kind: 'site-section', siteSectionId: reader.sections.api },
      '/to-legacy': { kind: 'site-space', siteSpaceId: reader.siteSpaces.legacy },
      '/to-guides': { kind: 'site-space', siteSpaceId: reader.siteSpaces.guides },
    };
    for (const [source, destination] of Object.entries(destinations)) {
      await t.http
        .post(`${path}/redirects`)
        .set(...org.admin.auth)
        .send({ source, destination })
        .expect(201);
    }
    // Expected, by source: [shown to a visitor without claims, shown to staff].
    const expected: Record<string, [boolean, boolean]> = { '/to-api': [false, true], '/to-legacy': [false, true], '/to-guides': [true, true] };
    for (const [source, [toVisitor, toStaff]] of Object.entries(expected)) {
      for (const [who, token, claims, shown] of [
        ['visitor', visitor, {}, toVisitor],
        ['staff', staff, { staff: true }, toStaff],
      ] as const) {
        const where = `${who} ${source}`;
        const res = await t.http.get(`${path}/redirect?source=${source}`).set(...bearer(token));
        expect({ where, status: res.status }).toEqual({ where, status: shown ? 200 : 404 });
        if (!shown) {
          expectErrorEnvelope(res, 404);
          expect(JSON.stringify(res.body)).not.toContain(reader.sections.api);
        }
        const resolved = await t.http.post('/v1/urls/published').send({ url: `${reader.base}${source}`, visitor: { jwtToken: await visitorJwt(key, claims) } });
        expect({ where, status: resolved.status }).toEqual({ where, status: shown ? 200 : 404 });
        if (shown) expect({ where, target: resolved.body.target }).toEqual({ where, target: 'content' });
      }
    }
  });
});

/**
 * URL resolution answers from site snapshots kept in memory (no query per request while the process
 * listens for changes). They must never outlive what they were read from: each change below is made
 * on a warm cache, and the very next resolution must see it. A change made by another process (here a
 * separate connection, as another replica would) is seen once PostgreSQL's notification arrives; with
 * the listening connection gone, resolution reads the generation per request and is still never stale.
 */

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
