import { In } from 'typeorm';
import { ContentDocument } from '../../src/modules/content/document.entity';
import { RevisionLifecycleService } from '../../src/modules/content/revision-lifecycle.service';
import { addMember, Actor, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createImportedSpace, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, GIF_4x3, serveWebsite, Website } from '../support/website-fixture';

describe('space content (reads)', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  let revision: string;
  let reader: Actor;
  /** Page ids by path. */
  let pages: Record<string, string>;
  let files: { id: string; name: string; downloadURL: string }[];

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
    org = await createOrganization(t);
    ({ space, revision, pages, files } = await createImportedSpace(t, org, site));
    reader = await addMember(t, org, 'read');
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const get = (path: string, actor: Actor = org.admin) => t.http.get(path).set(...actor.auth);
  const base = () => `/v1/spaces/${space.id}`;

  describe('access (every read route)', () => {
    const routes = () => [
      `${base()}/content`,
      `${base()}/content/pages`,
      `${base()}/content/files`,
      `${base()}/content/files/${files[0].id}`,
      `${base()}/content/page/${pages.guide}`,
      `${base()}/content/path/guide`,
      `${base()}/revisions/${revision}`,
      `${base()}/revisions/${revision}/pages`,
      `${base()}/revisions/${revision}/files`,
      `${base()}/revisions/${revision}/files/${files[0].id}`,
      `${base()}/revisions/${revision}/files/${files[0].id}/download`,
      `${base()}/revisions/${revision}/page/${pages.guide}`,
      `${base()}/revisions/${revision}/path/guide`,
    ];

    it('lets a reader read', async () => {
      for (const route of routes()) expect((await get(route, reader)).status).toBe(200);
    });
  });

  describe('GET /content and /revisions/{revisionId}', () => {
    it('answers the active revision with its nested pages, files and variables', async () => {
      const res = await get(`${base()}/content`).expect(200);
      expectContract(res, 'getCurrentRevision');
      expect(res.body).toMatchObject({
        object: 'revision',
        id: revision,
        parents: [space.revisionId],
        reusableContents: [],
        variables: {},
        urls: { app: `http://app.quire.test/o/${org.id}/s/${space.id}/~/revisions/${revision}` },
      });
      expect(res.body.pages.map((page: { path: string }) => page.path)).toEqual(['acme-documentation', 'guide', 'widgets']);
      expect(res.body.files).toHaveLength(2);
    });

    it('accepts metadata and computed as booleans, and refuses anything else', async () => {
      const res = await get(`${base()}/content?metadata=false&computed=false`).expect(200);
      expect(res.body).not.toHaveProperty('git');
      expectErrorEnvelope(await get(`${base()}/content?metadata=maybe`), 400, /metadata/);
      expectErrorEnvelope(await get(`${base()}/content?computed=2`), 400, /computed/);
    });

    it('answers any revision of the space by id, an old one as it was', async () => {
      const initial = await get(`${base()}/revisions/${space.revisionId}`).expect(200);
      expectContract(initial, 'getRevisionById');
      expect(initial.body).toMatchObject({ id: space.revisionId, parents: [], pages: [], files: [] });
      const current = await get(`${base()}/revisions/${revision}`).expect(200);
      expectContract(current, 'getRevisionById');
      const pagesOf = await get(`${base()}/revisions/${space.revisionId}/pages`).expect(200);
      expectContract(pagesOf, 'listPagesInRevisionById');
      expect(pagesOf.body).toEqual({ pages: [] });
    });

    it('answers 404 for an unknown revision and for a revision of another space', async () => {
      const other = await createSpace(t, org);
      expectErrorEnvelope(await get(`${base()}/revisions/nope`), 404, /Revision/);
      expectErrorEnvelope(await get(`${base()}/revisions/${other.revisionId}`), 404, /Revision/);
      expectErrorEnvelope(await get(`/v1/spaces/${other.id}/revisions/${revision}/pages`), 404, /Revision/);
    });
  });

  describe('pages', () => {
    it('GET /content/page/{pageId} answers the page with its body and sub-pages', async () => {
      const res = await get(`${base()}/content/page/${pages.guide}`).expect(200);
      expectContract(res, 'getPageById');
      expect(res.body).toMatchObject({
        id: pages.guide,
        title: 'User Guide',
        kind: 'sheet',
        type: 'document',
        slug: 'guide',
        path: 'guide',
        urls: { app: `http://app.quire.test/o/${org.id}/s/${space.id}/guide` },
        pages: [{ id: pages['guide/install'], path: 'guide/install', markdown: expect.stringContaining('frobnicator') }],
      });
      // Relative refs by default: from `guide` the installation page is at `guide/install`.
      expect(res.body.markdown).toContain('[the installation](guide/install#requirements)');
    });

    it('gives stable refs on request', async () => {
      const res = await get(`${base()}/content/page/${pages.guide}?format.markdown.refs=stable`).expect(200);
      expect(res.body.markdown).toContain(`[the installation](/pages/${pages['guide/install']}#requirements)`);
    });

    it('gives the body as a JSON document with format=document', async () => {
      const res = await get(`${base()}/content/page/${pages['guide/install']}?format=document`).expect(200);
      expectContract(res, 'getPageById');
      expect(res.body).not.toHaveProperty('markdown');
      expect(res.body.document.object).toBe('document');
      const types = res.body.document.nodes.map((node: { type: string }) => node.type);
      expect(types).toEqual(['paragraph', 'heading-2', 'paragraph', 'code', 'images', 'paragraph']);
      // The anchor is the public model's `meta.id` (the renderer's), not `data.id`.
      expect(res.body.document.nodes[1].meta).toEqual({ id: 'requirements' });
      expect(res.body.document.nodes[1].data).toEqual({});
      expect(res.body.document.nodes[4].nodes[0].data.ref).toEqual({ kind: 'file', file: files.find((file) => file.name === 'diagram.svg')?.id });
    });

    it.each([
      ['format=html', /format/],
      ['format.markdown.refs=absolute', /format\.markdown\.refs/],
      ['evaluated=sometimes', /evaluated/],
      ['dereferenced=yes', /dereferenced/],
      ['unknown=1', /unknown/],
    ])('refuses %s with 400', async (query, message) => {
      expectErrorEnvelope(await get(`${base()}/content/page/${pages.guide}?${query}`), 400, message);
    });

    it('accepts evaluated and dereferenced as the public description has them', async () => {
      await get(`${base()}/content/page/${pages.guide}?evaluated=deterministic-only&dereferenced=reusable-contents`).expect(200);
      await get(`${base()}/content/page/${pages.guide}?evaluated=true&dereferenced=false`).expect(200);
    });

    it('GET /content/path/{pagePath} finds a page by its path, slashes plain or encoded', async () => {
      const plain = await get(`${base()}/content/path/guide/install`).expect(200);
      expectContract(plain, 'getPageByPath');
      expect(plain.body.id).toBe(pages['guide/install']);
      const encoded = await get(`${base()}/content/path/guide%2Finstall`).expect(200);
      expect(encoded.body.id).toBe(pages['guide/install']);
      const inRevision = await get(`${base()}/revisions/${revision}/path/guide/install`).expect(200);
      expectContract(inRevision, 'getPageInRevisionByPath');
    });

    it('answers 404 for an unknown page, path, or a page only in another revision', async () => {
      expectErrorEnvelope(await get(`${base()}/content/page/nope`), 404, /Page nope not found/);
      expectErrorEnvelope(await get(`${base()}/content/path/guide/nope`), 404, /guide\/nope/);
      expectErrorEnvelope(await get(`${base()}/revisions/${space.revisionId}/page/${pages.guide}`), 404);
      const res = await get(`${base()}/revisions/${revision}/page/${pages.guide}`).expect(200);
      expectContract(res, 'getPageInRevisionById');
      expect(res.body.urls.app).toBe(`http://app.quire.test/o/${org.id}/s/${space.id}/guide`);
    });
  });

  describe('files', () => {
    it('walks the files page by page, each once', async () => {
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await get(`${base()}/content/files?limit=1${page ? `&page=${page}` : ''}`).expect(200);
        expectContract(res, 'listFiles');
        expect(res.body.count).toBe(2);
        seen.push(...res.body.items.map((file: { id: string }) => file.id));
        page = res.body.next?.page;
      } while (page);
      expect(seen).toEqual(files.map((file) => file.id));
      const inRevision = await get(`${base()}/revisions/${revision}/files?limit=1000`).expect(200);
      expectContract(inRevision, 'listFilesInRevisionById');
      expect(inRevision.body).not.toHaveProperty('next');
    });

    it('refuses a bad limit or a cursor of another list', async () => {
      expectErrorEnvelope(await get(`${base()}/content/files?limit=1001`), 400, /limit/);
      const links = await get(`${base()}/links?limit=1`).expect(200);
      expectErrorEnvelope(await get(`${base()}/content/files?page=${links.body.next.page}`), 400, /page/);
    });

    it('GET /content/files/{fileId} answers the file, 404 when unknown', async () => {
      const res = await get(`${base()}/content/files/${files[0].id}`).expect(200);
      expectContract(res, 'getFileById');
      expect(res.body).toEqual({
        id: files[0].id,
        name: 'logo.gif',
        contentType: 'image/gif',
        size: GIF_4x3.length,
        dimensions: { width: 4, height: 3 },
        downloadURL: `http://quire.test/v1/spaces/${space.id}/revisions/${revision}/files/${files[0].id}/download`,
      });
      const inRevision = await get(`${base()}/revisions/${revision}/files/${files[0].id}`).expect(200);
      expectContract(inRevision, 'getFileInRevisionById');
      expectErrorEnvelope(await get(`${base()}/content/files/nope`), 404, /File nope/);
    });

    it('serves the bytes at the downloadURL, to callers who may read the space', async () => {
      const res = await get(new URL(files[0].downloadURL).pathname, reader).buffer(true).expect(200);
      expect(res.headers['content-type']).toBe('image/gif');
      expect(res.headers['content-disposition']).toBe("inline; filename*=UTF-8''logo.gif");
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(Buffer.compare(res.body as Buffer, GIF_4x3)).toBe(0);
      expectErrorEnvelope(await get(`${base()}/revisions/${revision}/files/nope/download`), 404);
    });
  });

  describe('duplicate and purge', () => {
    it('a duplicated space shares the bodies; purging removes only what no revision uses', async () => {
      const copy = await t.http
        .post(`${base()}/duplicate`)
        .set(...org.admin.auth)
        .expect(201);
      const copied = await get(`/v1/spaces/${copy.body.id}/content`).expect(200);
      const original = await get(`${base()}/content`).expect(200);
      const ids = (body: { pages: { id: string; documentId?: string; pages: [] }[] }) => {
        const out: string[] = [];
        const walk = (list: { id: string; documentId?: string; pages: [] }[]) =>
          list.forEach((page) => (out.push(`${page.id}:${page.documentId}`), walk(page.pages)));
        walk(body.pages);
        return out;
      };
      expect(ids(copied.body)).toEqual(ids(original.body));
      expect(copied.body.parents).toEqual([revision]);
      const search = await get(`/v1/spaces/${copy.body.id}/search?query=frobnicator`).expect(200);
      expect(search.body.count).toBe(1);

      const documentIds = ids(original.body).map((entry) => entry.split(':')[1]);
      const documents = t.dataSource.getRepository(ContentDocument);
      const gc = () => t.dataSource.transaction((em) => t.app.get(RevisionLifecycleService).collectGarbage(em));
      // What the spaces purge does to a space past its retention period, then the content GC it runs.
      await t.dataSource.query(`DELETE FROM spaces WHERE id = $1`, [space.id]);
      await gc();
      expect(await documents.countBy({ id: In(documentIds) })).toBe(documentIds.length);
      await t.dataSource.query(`DELETE FROM spaces WHERE id = $1`, [copy.body.id]);
      await gc();
      // The guide's body names this import's own pages, so no other revision can use it: it is gone.
      const guide = original.body.pages.find((page: { path: string }) => page.path === 'guide');
      expect(await documents.countBy({ id: guide.documentId })).toBe(0);
      const left = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM documents d WHERE d.id = ANY($1)
           AND NOT EXISTS (SELECT 1 FROM revision_pages p WHERE p.document_id = d.id)`,
        [documentIds],
      );
      expect(left[0].n).toBe(0);
      const blobs = await t.dataSource.query(`SELECT count(*)::int AS n FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM revision_files f WHERE f.blob_id = b.id)`);
      expect(blobs[0].n).toBe(0);
    });
  });
});
