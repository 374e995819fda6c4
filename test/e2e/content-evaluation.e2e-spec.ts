import { addMember, createOrganization, createUser, OrgFixture, Actor } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { writeContent } from '../support/content-builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { petstore } from '../support/openapi-fixtures';
import { declaredRoutes } from '../support/route-declarations';
import { createReaderSite, visitorJwt } from '../support/published-builders';
import { sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Evaluated reads of documents (issue 27, points 3–4): variables, reusable contents and `if` blocks
 * on `getPageDocumentInRevisionById` and page reads as documents, the reusable-content reads, and
 * `getComputedDocument`.
 */

const PUBLISHED_BASE_URL = 'http://readers.test/sites';
const expr = (source: string) => `<code class="expression">${source}</code>`;
const include = (id: string) => `{% include ".gitbook/includes/${id}.md" %}`;

/** The texts of a document in order, void inlines and references by their source. */
function texts(document: Record<string, any>): string {
  const out: string[] = [];
  const walk = (node: Record<string, any>) => {
    if (node.object === 'text') out.push(node.leaves.map((leaf: { text: string }) => leaf.text).join(''));
    else if (node.type === 'expression') out.push(`{${node.data.expression}}`);
    else if (node.type === 'reusable-content') out.push(`[include ${node.data.ref.reusableContent}]`);
    else if (node.type === 'if') out.push(`[if ${node.data.expression}]`);
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) walk(child);
  };
  document.nodes.forEach(walk);
  return out.join('|');
}

describe('evaluated documents and reusable contents', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: Actor;
  let outsider: Actor;
  let space: string;
  let revision: string;

  const get = (path: string, actor: Actor = reader) => t.http.get(path).set(...actor.auth);
  const rev = () => `/v1/spaces/${space}/revisions/${revision}`;

  const content = (shared: string) => ({
    variables: { version: '2.0', product: 'Quire' },
    pages: [
      {
        pageId: 'vars',
        markdown: `Version ${expr('space.vars.version')} of ${expr('page.vars.product')} ${expr('page.vars.edition')}.`,
        variables: { edition: 'Pro' },
      },
      { pageId: 'one', markdown: `One\n\n${include('shared')}` },
      { pageId: 'two', markdown: `Two\n\n${include('shared')}` },
      { pageId: 'three', markdown: `Three\n\n${include('shared')}\n\n${include('empty')}` },
      {
        pageId: 'conditions',
        markdown: [
          '{% if visitor.claims.plan == "pro" %}',
          'Pro only.',
          '{% endif %}',
          '',
          '{% if space.vars.version == "2.0" %}',
          'Two point oh.',
          '{% endif %}',
          '',
          'Always.',
        ].join('\n'),
      },
    ],
    reusableContents: [
      { id: 'shared', title: 'Shared', markdown: shared },
      { id: 'empty', title: 'Empty', markdown: '' },
    ],
  });

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await addMember(t, org, 'read');
    outsider = await createUser(t);
    space = (await createSpace(t, org)).id;
    revision = await writeContent(t, org, space, content(`Shared for ${expr('space.vars.product')}`));
  });
  afterAll(() => t.close());

  it('declares the renderer’s reads for site tokens, and no new read for script tokens (their public security names none)', () => {
    const byOperation = new Map(declaredRoutes(t.app).map((route) => [route.operationId, route]));
    for (const operationId of ['getReusableContentInRevisionById', 'getReusableContentDocumentInRevisionById']) {
      expect([operationId, byOperation.get(operationId)?.site]).toEqual([operationId, { site: 'content' }]);
    }
    for (const operationId of ['getReusableContentById', 'getReusableContentInChangeRequestById', 'getComputedDocument']) {
      expect([operationId, byOperation.get(operationId)?.site]).toEqual([operationId, { site: 'none' }]);
    }
    for (const operationId of [
      'getReusableContentInRevisionById',
      'getReusableContentDocumentInRevisionById',
      'getReusableContentById',
      'getReusableContentInChangeRequestById',
      'getComputedDocument',
    ]) {
      expect([operationId, byOperation.get(operationId)?.script]).toEqual([operationId, { script: 'none' }]);
    }
  });

  describe('variables (getPageDocumentInRevisionById, getPageInRevisionById)', () => {
    it('leaves expressions unevaluated by default', async () => {
      const res = await get(`${rev()}/page/vars/document`).expect(200);
      expectContract(res, 'getPageDocumentInRevisionById');
      expect(texts(res.body)).toBe('Version |{space.vars.version}| of |{page.vars.product}| |{page.vars.edition}|.');
    });

    it("substitutes the revision's and the page's variables with evaluated=true and deterministic-only", async () => {
      for (const evaluated of ['true', 'deterministic-only']) {
        const res = await get(`${rev()}/page/vars/document?evaluated=${evaluated}`).expect(200);
        expectContract(res, 'getPageDocumentInRevisionById');
        expect(texts(res.body)).toBe('Version 2.0 of Quire Pro.');
      }
    });

    it('evaluates the body of page reads as documents, never the markdown', async () => {
      const res = await get(`${rev()}/page/vars?format=document&evaluated=true`).expect(200);
      expectContract(res, 'getPageInRevisionById');
      expect(texts(res.body.document)).toBe('Version 2.0 of Quire Pro.');
      const active = await get(`/v1/spaces/${space}/content/page/vars?format=document&evaluated=true`).expect(200);
      expectContract(active, 'getPageById');
      expect(active.body.document).toEqual(res.body.document);
      const byPath = await get(`/v1/spaces/${space}/content/path/vars?format=document&evaluated=deterministic-only`).expect(200);
      expect(texts(byPath.body.document)).toBe('Version 2.0 of Quire Pro.');
      const markdown = await get(`${rev()}/page/vars?evaluated=true`).expect(200);
      expect(markdown.body.markdown).toContain('space.vars.version');
    });

    it('refuses values the public description does not list', async () => {
      expectErrorEnvelope(await get(`${rev()}/page/vars/document?evaluated=maybe`), 400, /evaluated/);
      expectErrorEnvelope(await get(`${rev()}/page/vars?dereferenced=pages`), 400, /dereferenced/);
    });
  });

  describe('reusable contents in pages', () => {
    it('are expanded with dereferenced (true or reusable-contents), and stay references without', async () => {
      const plain = await get(`${rev()}/page/one/document`).expect(200);
      expect(texts(plain.body)).toBe('One|[include shared]');
      const expanded = await get(`${rev()}/page/one/document?dereferenced=reusable-contents`).expect(200);
      expectContract(expanded, 'getPageDocumentInRevisionById');
      expect(texts(expanded.body)).toBe('One|Shared for |{space.vars.product}');
      const evaluated = await get(`${rev()}/page/three/document?dereferenced=true&evaluated=true`).expect(200);
      expectContract(evaluated, 'getPageDocumentInRevisionById');
      expect(texts(evaluated.body)).toBe('Three|Shared for Quire');
    });

    it('one reusable content on three pages, changed once: all three read the new content', async () => {
      const readAll = async (at: string) =>
        Promise.all(['one', 'two', 'three'].map(async (page) => texts((await get(`${at}/page/${page}/document?dereferenced=true`).expect(200)).body)));
      expect(await readAll(rev())).toEqual([
        'One|Shared for |{space.vars.product}',
        'Two|Shared for |{space.vars.product}',
        'Three|Shared for |{space.vars.product}',
      ]);
      const org2Space = (await createSpace(t, org)).id;
      const first = await writeContent(t, org, org2Space, content('Old text'));
      const second = await writeContent(t, org, org2Space, content('New text'));
      const at = (id: string) => `/v1/spaces/${org2Space}/revisions/${id}`;
      expect(await readAll(at(first))).toEqual(['One|Old text', 'Two|Old text', 'Three|Old text']);
      expect(await readAll(at(second))).toEqual(['One|New text', 'Two|New text', 'Three|New text']);
      const pages = await get(`/v1/spaces/${org2Space}/content/page/two?format=document&dereferenced=true`).expect(200);
      expect(texts(pages.body.document)).toBe('Two|New text');
    });
  });

  describe('if blocks', () => {
    const conditions = () => `${rev()}/page/conditions/document`;

    it('stay as they are without evaluation', async () => {
      expect(texts((await get(conditions()).expect(200)).body)).toBe(
        '[if visitor.claims.plan == "pro"]|Pro only.|[if space.vars.version == "2.0"]|Two point oh.|Always.',
      );
    });

    it('deterministic-only decides the ones that do not read the visitor; evaluated=true without claims too', async () => {
      const expected = '[if visitor.claims.plan == "pro"]|Pro only.|Two point oh.|Always.';
      expect(texts((await get(`${conditions()}?evaluated=deterministic-only`).expect(200)).body)).toBe(expected);
      const res = await get(`${conditions()}?evaluated=true`).expect(200);
      expectContract(res, 'getPageDocumentInRevisionById');
      expect(texts(res.body)).toBe(expected);
    });

    it("evaluated=true with a site token decides them by the token's visitor claims", async () => {
      const siteOrg = await createOrganization(t);
      const readerSite = await createReaderSite(t, siteOrg, PUBLISHED_BASE_URL, 'visitor-auth');
      const key = (
        await t.http
          .get(`${sitePath(siteOrg, readerSite.site.id)}/publishing/auth`)
          .set(...siteOrg.admin.auth)
          .expect(200)
      ).body.privateKey as string;
      const guides = readerSite.spaces.guides;
      const live = await writeContent(t, siteOrg, guides, content('Shared'));
      const tokenFor = async (claims: Record<string, unknown>) =>
        (
          await t.http
            .post('/v1/urls/published')
            .send({ url: `${readerSite.base}/`, visitor: { jwtToken: await visitorJwt(key, claims) } })
            .expect(200)
        ).body.apiToken as string;
      const read = async (token: string, query: string) =>
        texts(
          (await t.http.get(`/v1/spaces/${guides}/revisions/${live}/page/conditions/document?${query}`).set('Authorization', `Bearer ${token}`).expect(200))
            .body,
        );
      const pro = await tokenFor({ plan: 'pro' });
      const free = await tokenFor({ plan: 'free' });
      expect(await read(pro, 'evaluated=true')).toBe('Pro only.|Two point oh.|Always.');
      expect(await read(free, 'evaluated=true')).toBe('Two point oh.|Always.');
      // The renderer's own mode: the visitor-dependent block is left for it.
      expect(await read(pro, 'evaluated=deterministic-only')).toBe('[if visitor.claims.plan == "pro"]|Pro only.|Two point oh.|Always.');
      const page = await t.http
        .get(`/v1/spaces/${guides}/revisions/${live}/page/conditions?format=document&evaluated=true`)
        .set('Authorization', `Bearer ${free}`)
        .expect(200);
      expect(texts(page.body.document)).toBe('Two point oh.|Always.');
      // A site token reads reusable contents as the renderer does.
      const reusable = await t.http.get(`/v1/spaces/${guides}/revisions/${live}/reusable-contents/shared`).set('Authorization', `Bearer ${pro}`).expect(200);
      expectContract(reusable, 'getReusableContentInRevisionById');
    });
  });

  describe('GET …/revisions/{revisionId}/reusable-contents/{reusableContentId} (getReusableContentInRevisionById)', () => {
    it('answers the reusable content, without a document when it is empty', async () => {
      const res = await get(`${rev()}/reusable-contents/shared`).expect(200);
      expectContract(res, 'getReusableContentInRevisionById');
      expect(res.body).toEqual({ id: 'shared', title: 'Shared', document: expect.any(String) });
      const empty = await get(`${rev()}/reusable-contents/empty`).expect(200);
      expectContract(empty, 'getReusableContentInRevisionById');
      expect(empty.body).toEqual({ id: 'empty', title: 'Empty' });
      // The revision lists the same.
      const listed = (await get(rev()).expect(200)).body.reusableContents;
      expect(listed).toEqual(expect.arrayContaining([res.body, empty.body]));
    });

    it('404 for an unknown reusable content or revision', async () => {
      expectErrorEnvelope(await get(`${rev()}/reusable-contents/nope`), 404, /Reusable content nope/);
      expectErrorEnvelope(await get(`/v1/spaces/${space}/revisions/unknown/reusable-contents/shared`), 404);
    });
  });

  describe('GET /v1/spaces/{spaceId}/content/reusable-contents/{reusableContentId} (getReusableContentById)', () => {
    it('401, 404, then the active revision’s reusable content', async () => {
      const path = `/v1/spaces/${space}/content/reusable-contents/shared`;
      expectErrorEnvelope(await t.http.get(path), 401);
      expectErrorEnvelope(await get(path, outsider), 404);
      const res = await get(path).expect(200);
      expectContract(res, 'getReusableContentById');
      expect(res.body.id).toBe('shared');
      expectErrorEnvelope(await get(`/v1/spaces/${space}/content/reusable-contents/nope`), 404);
    });
  });

  describe('GET …/reusable-contents/{reusableContentId}/document (getReusableContentDocumentInRevisionById)', () => {
    it('401, 404, then its document, evaluated as asked', async () => {
      const path = `${rev()}/reusable-contents/shared/document`;
      expectErrorEnvelope(await t.http.get(path), 401);
      expectErrorEnvelope(await get(path, outsider), 404);
      expectErrorEnvelope(await get(`${rev()}/reusable-contents/nope/document`), 404);
      const plain = await get(path).expect(200);
      expectContract(plain, 'getReusableContentDocumentInRevisionById');
      expect(texts(plain.body)).toBe('Shared for |{space.vars.product}');
      const evaluated = await get(`${path}?evaluated=true`).expect(200);
      expectContract(evaluated, 'getReusableContentDocumentInRevisionById');
      expect(texts(evaluated.body)).toBe('Shared for Quire');
      const empty = await get(`${rev()}/reusable-contents/empty/document`).expect(200);
      expectContract(empty, 'getReusableContentDocumentInRevisionById');
      expect(empty.body).toEqual({ object: 'document', data: {}, nodes: [] });
    });
  });

  describe('GET …/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId} (getReusableContentInChangeRequestById)', () => {
    it("401, 404, then the change request's reusable content", async () => {
      const cr = await createChangeRequest(t, org, space);
      const path = `/v1/spaces/${space}/change-requests/${cr.id}/content/reusable-contents/shared`;
      expectErrorEnvelope(await t.http.get(path), 401);
      expectErrorEnvelope(await get(path, outsider), 404);
      const res = await get(path).expect(200);
      expectContract(res, 'getReusableContentInChangeRequestById');
      expect(res.body.id).toBe('shared');
      expectErrorEnvelope(await get(`/v1/spaces/${space}/change-requests/${cr.id}/content/reusable-contents/nope`), 404);
      expectErrorEnvelope(await get(`/v1/spaces/${space}/change-requests/unknown/content/reusable-contents/shared`), 404);
    });
  });

  describe('POST /v1/spaces/{spaceId}/content/computed/document (getComputedDocument)', () => {
    const source = (slug: string, props: Record<string, unknown> = {}) => ({
      type: 'builtin:openapi',
      dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } },
      props,
    });
    const computed = (body: object, actor: Actor = reader) =>
      t.http
        .post(`/v1/spaces/${space}/content/computed/document`)
        .set(...actor.auth)
        .send(body);

    it("computes an OpenAPI source from the organization's spec", async () => {
      await t.http
        .put(`/v1/orgs/${org.id}/openapi/petstore`)
        .set(...org.admin.auth)
        .send({ source: { text: JSON.stringify(petstore()) } })
        .expect(201);
      const res = await computed({ source: source('petstore', { doc: 'info' }), seed: 'seed-1' }).expect(200);
      expectContract(res, 'getComputedDocument');
      expect(texts(res.body)).toContain('Swagger Petstore');
      // A spec the organization does not have: an empty document, as a computed page shows.
      const missing = await computed({ source: source('nope'), seed: 'seed-2' }).expect(200);
      expect(missing.body.nodes).toEqual([]);
    });

    it('422 for sources computed elsewhere, 400 for bad bodies', async () => {
      const integration = { type: 'integration:acme:docs', props: {}, dependencies: {} };
      expectErrorEnvelope(await computed({ source: integration, seed: 's' }), 422, /integration:acme:docs/);
      const translation = {
        type: 'builtin:translation',
        props: { space: 'x', document: 'y' },
        dependencies: { translation: { ref: { kind: 'translation', translation: 't' } } },
      };
      expectErrorEnvelope(await computed({ source: translation, seed: 's' }), 422, /builtin:translation/);
      expectErrorEnvelope(await computed({ source: source('petstore') }), 400, /seed/);
      expectErrorEnvelope(await computed({ seed: 's' }), 400, /source/);
      expectErrorEnvelope(await computed({ source: { type: 'builtin:openapi', props: {} }, seed: 's' }), 400, /dependencies/);
      expectErrorEnvelope(await computed({ source: { props: {} }, seed: 's' }), 400, /type/);
      expectErrorEnvelope(
        await t.http
          .post(`/v1/spaces/${space}/content/computed/document?schema=old`)
          .set(...reader.auth)
          .send({ source: source('petstore'), seed: 's' }),
        400,
        /schema/,
      );
    });
  });
});
