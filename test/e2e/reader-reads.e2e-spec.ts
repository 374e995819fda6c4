import { GitBookAPI } from '@gitbook/api';
import { PurgeEmbedCacheJob } from '../../src/modules/content/embeds/embed-cache-purge.job';
import { ContentRepository } from '../../src/modules/content/content.repository';
import { ContentService } from '../../src/modules/content/content.service';
import { presentFile } from '../../src/modules/content/content.presenter';
import { FileUrlSigner } from '../../src/modules/content/reader-files/file-url-signer';
import { ReaderFilesRepository } from '../../src/modules/content/reader-files/reader-files.repository';
import { SpaceAccessService } from '../../src/modules/access/space-access.service';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { declaredRoutes } from '../support/route-declarations';
import { createSite, sitePath } from '../support/site-builders';
import { createImportedSpace, createSpace } from '../support/space-builders';
import { createTestApp, serverUrl, TestApp } from '../support/test-app';
import { DOCS_SITE, GIF_4x3, serveWebsite, Website } from '../support/website-fixture';

/** The revision reads GitBook's renderer makes (issue 26, point 5) and reader-safe file URLs (point 6). */
describe('reader reads: page documents, meta links, signed file URLs', () => {
  let t: TestApp;
  let website: Website;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  let revision: string;
  let pages: Record<string, string>;
  let files: { id: string; name: string; downloadURL: string }[];
  let outsider: Actor;
  let reader: Actor;
  let site: { id: string };

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    website = await serveWebsite(DOCS_SITE);
    org = await createOrganization(t);
    ({ space, revision, pages, files } = await createImportedSpace(t, org, website));
    outsider = await createUser(t);
    reader = await addMember(t, org, 'read');
    site = await createSite(t, org, { spaces: [space.id] });
    await t.http
      .post(`${sitePath(org, site.id)}/publish`)
      .set(...org.admin.auth)
      .expect(200);
  });
  afterAll(async () => {
    await website.close();
    await t.close();
  });

  const get = (path: string, actor: Actor = org.admin) => t.http.get(path).set(...actor.auth);
  const rev = () => `/v1/spaces/${space.id}/revisions/${revision}`;

  describe('site-token declarations', () => {
    it('declares the reads the renderer makes callable with a site token, and getUserById unscoped', () => {
      const byOperation = new Map(declaredRoutes(t.app).map((route) => [route.operationId, route.site]));
      for (const operationId of [
        'getRevisionById',
        'getPageInRevisionById',
        'getPageInRevisionByPath',
        'listPagesInRevisionById',
        'getFileInRevisionById',
        'getPageDocumentInRevisionById',
        'listRevisionPageMetaLinks',
        'listSpacePageMetaLinks',
        'listChangeRequestPageMetaLinks',
        'getEmbedByUrlInSpace',
      ]) {
        expect([operationId, byOperation.get(operationId)]).toEqual([operationId, { site: 'content' }]);
      }
      expect(byOperation.get('getUserById')).toEqual({ site: 'unscoped' });
      // Writes and downloads by token stay closed to site tokens.
      expect(byOperation.get('downloadFileInRevisionById')).toEqual({ site: 'none' });
    });
  });

  describe('the reads by id the renderer makes, as it makes them', () => {
    it('getPageInRevisionById with format=markdown and format.markdown.refs=stable keeps page refs by id', async () => {
      const res = await get(`${rev()}/page/${pages.guide}?format=markdown&format.markdown.refs=stable`, reader).expect(200);
      expectContract(res, 'getPageInRevisionById');
      expect(res.body.markdown).toContain(`[the installation](/pages/${pages['guide/install']}#requirements)`);
      const byPath = await get(`${rev()}/path/guide?format=markdown&format.markdown.refs=stable`, reader).expect(200);
      expectContract(byPath, 'getPageInRevisionByPath');
      expect(byPath.body.markdown).toBe(res.body.markdown);
    });

    it('getRevisionById, listPagesInRevisionById, getFileInRevisionById and getUserById answer their public schemas', async () => {
      expectContract(await get(rev(), reader).expect(200), 'getRevisionById');
      expectContract(await get(`${rev()}/pages`, reader).expect(200), 'listPagesInRevisionById');
      expectContract(await get(`${rev()}/files/${files[0].id}`, reader).expect(200), 'getFileInRevisionById');
      expectContract(await get(`/v1/users/${org.admin.user.id}`, reader).expect(200), 'getUserById');
    });
  });

  describe("through @gitbook/api's client, as the renderer calls", () => {
    it('reads a revision, a page as markdown with stable refs, its document, meta links, a file and a user', async () => {
      // The package's declarations import './client' without an extension, which `nodenext` resolution
      // cannot follow, so its methods are typed here by what the test uses (the calls run the real client).
      type Call = (...args: any[]) => Promise<{ data: any }>;
      const api = new GitBookAPI({ endpoint: serverUrl(t), authToken: reader.token }) as unknown as {
        spaces: Record<string, Call>;
        users: Record<string, Call>;
      };
      const { data: revisionRead } = await api.spaces.getRevisionById(space.id, revision);
      expect(revisionRead.id).toBe(revision);
      const { data: page } = await api.spaces.getPageInRevisionById(space.id, revision, pages.guide, { format: 'markdown', 'format.markdown.refs': 'stable' });
      expect(page).toMatchObject({ id: pages.guide, markdown: expect.stringContaining(`/pages/${pages['guide/install']}`) });
      const { data: document } = await api.spaces.getPageDocumentInRevisionById(space.id, revision, pages.guide);
      expect(document.object).toBe('document');
      const { data: metaLinks } = await api.spaces.listRevisionPageMetaLinks(space.id, revision, pages.guide);
      expect(metaLinks).toEqual({ alternates: [] });
      const { data: file } = await api.spaces.getFileInRevisionById(space.id, revision, files[0].id);
      expect(file.id).toBe(files[0].id);
      const { data: user } = await api.users.getUserById(org.admin.user.id);
      expect(user.id).toBe(org.admin.user.id);
      await expect(api.spaces.getPageDocumentInRevisionById(space.id, revision, 'unknown-page')).rejects.toMatchObject({ code: 404 });
    });
  });

  describe('GET …/revisions/{revisionId}/page/{pageId}/document', () => {
    it('requires authentication, and answers 404 outside the organization', async () => {
      expectErrorEnvelope(await t.http.get(`${rev()}/page/${pages.guide}/document`), 401);
      expectErrorEnvelope(await get(`${rev()}/page/${pages.guide}/document`, outsider), 404);
    });

    it("answers the page's JSONDocument, the same tree as getPageInRevisionById with format=document", async () => {
      const res = await get(`${rev()}/page/${pages.guide}/document`, reader).expect(200);
      expectContract(res, 'getPageDocumentInRevisionById');
      expect(res.body.object).toBe('document');
      expect(res.body.nodes.length).toBeGreaterThan(0);
      const page = await get(`${rev()}/page/${pages.guide}?format=document`).expect(200);
      expect(res.body).toEqual(page.body.document);
      // Headings carry their anchors where the renderer reads them (meta.id).
      const heading = res.body.nodes.find((node: { type: string }) => node.type.startsWith('heading-'));
      expect(heading?.meta?.id).toEqual(expect.any(String));
    });

    it('accepts evaluated and dereferenced, refuses other values, 404 for an unknown page or revision', async () => {
      await get(`${rev()}/page/${pages.guide}/document?evaluated=true&dereferenced=reusable-contents`).expect(200);
      expectErrorEnvelope(await get(`${rev()}/page/${pages.guide}/document?evaluated=maybe`), 400, /evaluated/);
      expectErrorEnvelope(await get(`${rev()}/page/unknown-page/document`), 404);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/unknown/page/${pages.guide}/document`), 404);
    });
  });

  describe('page meta links (revision, space, change request)', () => {
    it('answers RevisionPageMetaLinks for a page, 404 for an unknown page', async () => {
      const changeRequest = await createChangeRequest(t, org, space.id);
      const routes: [string, string][] = [
        [`${rev()}/page/${pages.guide}/meta-links`, 'listRevisionPageMetaLinks'],
        [`/v1/spaces/${space.id}/content/page/${pages.guide}/meta-links`, 'listSpacePageMetaLinks'],
        [`/v1/spaces/${space.id}/change-requests/${changeRequest.id}/content/page/${pages.guide}/meta-links`, 'listChangeRequestPageMetaLinks'],
      ];
      for (const [route, operationId] of routes) {
        expectErrorEnvelope(await t.http.get(route), 401);
        const res = await get(route, reader).expect(200);
        expectContract(res, operationId);
        expect(res.body).toEqual({ alternates: [] });
        expectErrorEnvelope(await get(route.replace(pages.guide, 'unknown-page')), 404);
      }
    });
  });

  describe('GET /v1/spaces/{spaceId}/embed', () => {
    let pagesSite: Website;
    beforeAll(async () => {
      pagesSite = await serveWebsite({
        '/article': {
          body: `<html><head><title>Plain title</title><meta property="og:title" content="An article">
            <meta property="og:site_name" content="Example News"><link rel="shortcut icon" href="/favicon.png"></head><body>Hi</body></html>`,
        },
        '/titled': { body: '<html><head><title> Only a title </title></head></html>' },
        '/picture.gif': { type: 'image/gif', body: GIF_4x3 },
        '/missing-later': { status: 500, body: 'down' },
      });
    });
    afterAll(() => pagesSite.close());
    const embed = (url: string, actor: Actor = reader) => get(`/v1/spaces/${space.id}/embed?url=${encodeURIComponent(url)}`, actor);

    it('requires authentication, access to the space, and an http(s) URL', async () => {
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/embed?url=${encodeURIComponent(`${pagesSite.origin}/article`)}`), 401);
      expectErrorEnvelope(await embed(`${pagesSite.origin}/article`, outsider), 404);
      expectErrorEnvelope(await embed('javascript:alert(1)'), 400, /url/);
      expectErrorEnvelope(await embed('not a url'), 400, /url/);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/embed`), 400, /url/);
      expectErrorEnvelope(await embed(`https://example.com/${'a'.repeat(2100)}`), 400, /url/);
    });

    it('answers title, site, icon and type from the page (Open Graph first), then from the cache without fetching again', async () => {
      const url = `${pagesSite.origin}/article`;
      const first = await embed(url).expect(200);
      expectContract(first, 'getEmbedByUrlInSpace');
      expect(first.body).toEqual({ type: 'link', title: 'An article', site: 'Example News', icon: `${pagesSite.origin}/favicon.png` });
      const fetches = pagesSite.requests.filter((path) => path === '/article').length;
      expect(fetches).toBe(1);
      const again = await embed(url).expect(200);
      expect(again.body).toEqual(first.body);
      expect(pagesSite.requests.filter((path) => path === '/article')).toHaveLength(1);

      const titled = await embed(`${pagesSite.origin}/titled`).expect(200);
      expectContract(titled, 'getEmbedByUrlInSpace');
      expect(titled.body).toEqual({ type: 'link', title: 'Only a title', site: '127.0.0.1' });
      const picture = await embed(`${pagesSite.origin}/picture.gif`).expect(200);
      expect(picture.body).toEqual({ type: 'link', title: 'picture.gif', site: '127.0.0.1' });
    });

    it('answers a bare link embed when the URL cannot be fetched (offline, server error)', async () => {
      const offline = await serveWebsite({});
      const url = `${offline.origin}/gone?x=1`;
      await offline.close();
      const res = await embed(url).expect(200);
      expectContract(res, 'getEmbedByUrlInSpace');
      expect(res.body).toEqual({ type: 'link', title: url, site: '127.0.0.1' });
      const failing = await embed(`${pagesSite.origin}/missing-later`).expect(200);
      expect(failing.body).toEqual({ type: 'link', title: `${pagesSite.origin}/missing-later`, site: '127.0.0.1' });
    });

    it('purges embeds fetched more than a week ago (daily job), keeping recent ones', async () => {
      await embed(`${pagesSite.origin}/titled?old`).expect(200);
      await embed(`${pagesSite.origin}/titled?recent`).expect(200);
      await t.dataSource.query(`UPDATE embed_cache SET fetched_at = now() - interval '8 days' WHERE url = $1`, [`${pagesSite.origin}/titled?old`]);
      expect(await t.app.get(PurgeEmbedCacheJob).run()).toBeGreaterThanOrEqual(1);
      const left: { url: string }[] = await t.dataSource.query(`SELECT url FROM embed_cache WHERE url LIKE $1`, [`${pagesSite.origin}/titled?%`]);
      expect(left.map((row) => row.url)).toEqual([`${pagesSite.origin}/titled?recent`]);
    });

    it('goes through the outbound address guard: without OUTBOUND_ALLOW_PRIVATE a private address is never asked', async () => {
      const guarded = await createTestApp();
      try {
        const guardedOrg = await createOrganization(guarded);
        const guardedSpace = await createSpace(guarded, guardedOrg);
        const before = pagesSite.requests.length;
        const url = `${pagesSite.origin}/titled?guarded`;
        const res = await guarded.http
          .get(`/v1/spaces/${guardedSpace.id}/embed?url=${encodeURIComponent(url)}`)
          .set(...guardedOrg.admin.auth)
          .expect(200);
        expect(res.body).toEqual({ type: 'link', title: url, site: '127.0.0.1' });
        expect(pagesSite.requests.length).toBe(before);
      } finally {
        await guarded.close();
      }
    });
  });

  describe('signed file URLs', () => {
    const signed = async (revisionId = revision, nowMs = Date.now()) => {
      const sign = await t.app.get(FileUrlSigner).signerFor(revisionId, nowMs);
      return (fileId: string) => new URL(sign(fileId)).pathname + new URL(sign(fileId)).search;
    };

    it('loads a published file without a token, with Cache-Control and ETag, the same bytes as the token download', async () => {
      const url = (await signed())(files[0].id);
      const res = await t.http.get(url).buffer(true).expect(200);
      const byToken = await get(`${rev()}/files/${files[0].id}/download`).buffer(true).expect(200);
      expect(Buffer.compare(res.body as Buffer, byToken.body as Buffer)).toBe(0);
      expect(res.headers['content-type']).toBe(byToken.headers['content-type']);
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers['cache-control'])?.[1]);
      expect(res.headers['cache-control']).toMatch(/^public, /);
      expect(maxAge).toBeGreaterThan(7 * 86_400);
      expect(maxAge).toBeLessThanOrEqual(8 * 86_400);
      expect(res.headers.etag).toBe(byToken.headers.etag);
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      await t.http.get(url).set('If-None-Match', res.headers.etag).expect(304);
      await t.http.get(url).set('If-None-Match', `"other", W/${res.headers.etag}`).expect(304);
      await t.http.get(url).set('If-None-Match', '"other"').expect(200);
    });

    it('is the same URL all day (stable for caches), and differs per file and revision', async () => {
      const day = Date.UTC(2026, 10, 27);
      const morning = await signed(revision, day + 1000);
      const evening = await signed(revision, day + 86_399_000);
      expect(morning(files[0].id)).toBe(evening(files[0].id));
      expect(morning(files[0].id)).not.toBe(morning(files[1].id));
      expect((await signed(space.revisionId, day + 1000))(files[0].id)).not.toBe(morning(files[0].id));
    });

    it('refuses tampered, expired, other-file and other-revision URLs before reading anything', async () => {
      const good = new URL((await signed())(files[0].id), 'http://x');
      const signature = good.searchParams.get('signature') as string;
      const expires = good.searchParams.get('expires') as string;
      const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
      const expired = new URL((await signed(revision, Date.now() - 9 * 86_400_000))(files[0].id), 'http://x');
      const cases: [string, string, RegExp][] = [
        ['tampered signature', `/v1/reader/files/${revision}/${files[0].id}?expires=${expires}&signature=${flipped}`, /not valid/],
        ['signature of another length', `/v1/reader/files/${revision}/${files[0].id}?expires=${expires}&signature=abc`, /not valid/],
        ['later expiry', `/v1/reader/files/${revision}/${files[0].id}?expires=${Number(expires) + 86_400}&signature=${signature}`, /not valid/],
        ['expired', `${expired.pathname}${expired.search}`, /expired/],
        ['other file', `/v1/reader/files/${revision}/${files[1].id}?expires=${expires}&signature=${signature}`, /not valid/],
        ['other revision', `/v1/reader/files/${space.revisionId}/${files[0].id}?expires=${expires}&signature=${signature}`, /not valid/],
        ['missing file', `/v1/reader/files/${revision}/no-such-file?expires=${expires}&signature=${signature}`, /not valid/],
      ];
      const repository = t.app.get(ReaderFilesRepository);
      const content = t.app.get(ContentRepository);
      const reads = [
        jest.spyOn(repository, 'publishedFile'),
        jest.spyOn(content, 'findFile'),
        jest.spyOn(content, 'blobData'),
        jest.spyOn(content, 'findRevision'),
      ];
      try {
        for (const [what, url, message] of cases) {
          const res = await t.http.get(url);
          expect([what, res.status]).toEqual([what, 403]);
          expectErrorEnvelope(res, 403, message);
          expect(res.headers['content-disposition']).toBeUndefined();
        }
        for (const spy of reads) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of reads) spy.mockRestore();
      }
      expectErrorEnvelope(await t.http.get(`/v1/reader/files/${revision}/${files[0].id}?expires=soon&signature=${signature}`), 400, /expires/);
      expectErrorEnvelope(await t.http.get(`/v1/reader/files/${revision}/${files[0].id}`), 400);
    });

    it('never serves a file of a space that is not published: unpublished site, space on no site', async () => {
      const url = (await signed())(files[0].id);
      await t.http
        .post(`${sitePath(org, site.id)}/unpublish`)
        .set(...org.admin.auth)
        .expect(200);
      try {
        expectErrorEnvelope(await t.http.get(url), 404);
      } finally {
        await t.http
          .post(`${sitePath(org, site.id)}/publish`)
          .set(...org.admin.auth)
          .expect(200);
      }
      await t.http.get(url).expect(200);
      // A space no site shows, with files: signed URLs of its revision are refused too.
      const unlisted = await createImportedSpace(t, org, website);
      expectErrorEnvelope(await t.http.get((await signed(unlisted.revision))(unlisted.files[0].id)), 404);
    });

    it("reads for a site token present the signed URL as the file's downloadURL (user tokens keep the token download)", async () => {
      const byUser = await get(`${rev()}/files/${files[0].id}`).expect(200);
      expect(byUser.body.downloadURL).toBe(`http://quire.test${rev()}/files/${files[0].id}/download`);
      const access = await t.app.get(SpaceAccessService).resolve(org.admin.user, space.id);
      const { context, file } = await t.app.get(ContentService).file(access, revision, files[0].id);
      const json = presentFile(await t.app.get(ContentService).forReaders(context), file);
      expectPublicSchema(json, 'RevisionFile');
      const url = new URL(json.downloadURL);
      expect(url.pathname).toBe(`/v1/reader/files/${revision}/${files[0].id}`);
      await t.http.get(url.pathname + url.search).expect(200);
    });
  });
});
