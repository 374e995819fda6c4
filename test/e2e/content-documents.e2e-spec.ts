import { Actor, OrgFixture, addMember, createOrganization, createUser } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { writeContent } from '../support/content-builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { petstore } from '../support/openapi-fixtures';
import { declaredRoutes } from '../support/route-declarations';
import { createReaderSite, visitorJwt } from '../support/published-builders';
import { sitePath } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { TestApp, createTestApp } from '../support/test-app';
import { markdownToDocument } from '../../src/modules/content/document';
import { FillDocumentsJob } from '../../src/modules/content/fill-documents.job';
import { MAX_DOCUMENT_DEPTH } from '../../src/modules/content/document/document-input';
import { EntityManager } from 'typeorm';
import { LinksRepository } from '../../src/modules/content/links/links.repository';
import type { RevisionDelta } from '../../src/modules/content/revision-delta';
import { RevisionDeltaWriter } from '../../src/modules/content/revision-delta-writer';
import { DraftFile, DraftPage, RevisionWriter, documentPage } from '../../src/modules/content/revision-writer';

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

/** A document without its keys (keys are numbered per parse; documents are compared up to them). */
function unkeyed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unkeyed);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'key')
        .map(([key, item]) => [key, unkeyed(item)]),
    );
  }
  return value;
}

/** The dialect's Markdown of several block types, in the form `documentToMarkdown` writes it. */
const RICH = `## Setup

{% hint style="warning" %}
Read **this** first.
{% endhint %}

{% tabs %}
{% tab title="npm" %}
Run it.
{% endtab %}
{% tab title="yarn" %}
Or this.
{% endtab %}
{% endtabs %}

| Name | Value |
| --- | --- |
| a | *one* |
| b | \`two\` |

{% code title="index.js" %}
\`\`\`js
console.log(1);
\`\`\`
{% endcode %}
`;

describe('stored page documents (documents.document, written JSON documents, getDocumentById)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let outsider: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    outsider = await createUser(t);
  });
  afterAll(() => t.close());

  const get = (path: string, actor: Actor = org.admin) => t.http.get(path).set(...actor.auth);
  const post = (path: string, body: object) =>
    t.http
      .post(path)
      .set(...org.admin.auth)
      .send(body);

  async function changeRequest(spaceId: string): Promise<string> {
    const res = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return `/v1/spaces/${spaceId}/change-requests/${res.body.id}`;
  }

  /** A new space whose main has the pages of `changes` (inserted and merged): page ids in order. */
  async function spaceWith(changes: object[]): Promise<{ id: string; pages: string[] }> {
    const space = await createSpace(t, org);
    const cr = await changeRequest(space.id);
    const res = await post(`${cr}/content?compat=false`, { changes }).expect(200);
    await post(`${cr}/merge`, {}).expect(200);
    return { id: space.id, pages: res.body.changes.map((change: { page: { id: string } }) => change.page.id) };
  }

  const storedDocument = async (documentId: string): Promise<unknown> =>
    ((await t.dataSource.query(`SELECT document FROM documents WHERE id = $1`, [documentId])) as { document: unknown }[])[0]?.document;

  describe('written as Markdown', () => {
    it('stores the document at write time and answers it on every document read', async () => {
      const markdown = `# Intro\n\nSome *text* and a [link](https://example.com).\n\n${RICH}`;
      const space = await spaceWith([{ operation: 'insert_page', title: 'Rich', document: { markdown } }]);
      const [pageId] = space.pages;
      const page = (await get(`/v1/spaces/${space.id}/content/page/${pageId}`).expect(200)).body;
      const expected = markdownToDocument(page.markdown);

      // The column is filled, with exactly what the parser gives (keys included: same text, same keys).
      expect(await storedDocument(page.documentId)).toEqual(expected);

      const asDocument = await get(`/v1/spaces/${space.id}/content/page/${pageId}?format=document`).expect(200);
      expectContract(asDocument, 'getPageById');
      expect(asDocument.body.document).toEqual(expected);
      const revision = (await get(`/v1/spaces/${space.id}`).expect(200)).body.revision;
      const route = await get(`/v1/spaces/${space.id}/revisions/${revision}/page/${pageId}/document`).expect(200);
      expectContract(route, 'getPageDocumentInRevisionById');
      expect(route.body).toEqual(expected);
    });

    it('a body stored before documents were (NULL) still reads, and the fill job stores it', async () => {
      const markdown = `Old body ${Date.now()}\n\n{% hint style="info" %}\nKept.\n{% endhint %}\n`;
      const space = await spaceWith([{ operation: 'insert_page', title: 'Old', document: { markdown } }]);
      const [pageId] = space.pages;
      const page = (await get(`/v1/spaces/${space.id}/content/page/${pageId}`).expect(200)).body;
      await t.dataSource.query(`UPDATE documents SET document = NULL WHERE id = $1`, [page.documentId]);
      const expected = markdownToDocument(page.markdown);

      expect((await get(`/v1/spaces/${space.id}/content/page/${pageId}?format=document`).expect(200)).body.document).toEqual(expected);
      expect((await get(`/v1/spaces/${space.id}/documents/${page.documentId}`).expect(200)).body).toEqual(expected);
      expect(await storedDocument(page.documentId)).toBeNull();

      expect(await t.app.get(FillDocumentsJob).run()).toBeGreaterThanOrEqual(1);
      expect(await storedDocument(page.documentId)).toEqual(expected);
      expect((await get(`/v1/spaces/${space.id}/content/page/${pageId}?format=document`).expect(200)).body.document).toEqual(expected);
    });
  });

  describe('written as a JSON document (updateChangeRequestContent)', () => {
    it('reads back as the document written (up to keys) and as its Markdown', async () => {
      const document = unkeyed(markdownToDocument(RICH)) as { nodes: unknown[] };
      const space = await spaceWith([{ operation: 'insert_page', title: 'From JSON', document: { document } }]);
      const [pageId] = space.pages;
      const page = (await get(`/v1/spaces/${space.id}/content/page/${pageId}`).expect(200)).body;
      // Kept whole: the leading heading of a JSON document stays in the body (it is not taken as the title).
      expect(page.title).toBe('From JSON');
      expect(page.markdown).toBe(RICH);
      const read = (await get(`/v1/spaces/${space.id}/content/page/${pageId}?format=document`).expect(200)).body.document;
      expect(unkeyed(read)).toEqual(document);
      expect(await storedDocument(page.documentId)).toEqual(read);
    });

    it('updates a page from a document, and a large one (written in the worker pool)', async () => {
      const space = await spaceWith([{ operation: 'insert_page', title: 'Big', document: { markdown: 'before' } }]);
      const [pageId] = space.pages;
      // 700 blocks of 3 leaves: 3,500 nodes, past DOCUMENT_WORKER_MIN_NODES (and within the request's 1,000 items per array).
      const markdown = Array.from({ length: 700 }, (_, i) => `Paragraph ${i} with **bold** text.`).join('\n\n') + '\n';
      const document = unkeyed(markdownToDocument(markdown));
      const cr = await changeRequest(space.id);
      await post(`${cr}/content`, { changes: [{ operation: 'update_page', page: pageId, document: { document } }] }).expect(200);
      const page = (await get(`${cr}/content/page/${pageId}`).expect(200)).body;
      expect(page.markdown).toBe(markdown);
      expect(unkeyed((await get(`${cr}/content/page/${pageId}?format=document`).expect(200)).body.document)).toEqual(document);
    });

    it('refuses an invalid document with 400 naming the path, and writes nothing of the batch', async () => {
      const space = await createSpace(t, org);
      const cr = await changeRequest(space.id);
      const valid = { operation: 'insert_page', title: 'ok', document: { markdown: 'fine' } };
      const hint = unkeyed(markdownToDocument('{% hint style="info" %}\nx\n{% endhint %}\n')) as { nodes: { data: Record<string, unknown> }[] };
      hint.nodes[0].data.style = 'loud';
      const res = await post(`${cr}/content`, { changes: [valid, { operation: 'insert_page', title: 'bad', document: { document: hint } }] });
      expectErrorEnvelope(res, 400);
      expect(res.body.error.message).toContain('changes[1].document.document.nodes.0.data.style: must be one of');

      const noData = await post(`${cr}/content`, { changes: [{ operation: 'insert_page', document: { document: { object: 'document', nodes: [] } } }] });
      expectErrorEnvelope(noData, 400);
      expect(noData.body.error.message).toContain('changes[0].document.document: must have data');

      let deep: object = { object: 'text', leaves: [] };
      for (let i = 0; i < MAX_DOCUMENT_DEPTH; i++) deep = { object: 'block', type: 'blockquote', data: {}, nodes: [deep] };
      const tooDeep = await post(`${cr}/content`, {
        changes: [{ operation: 'insert_page', document: { document: { object: 'document', data: {}, nodes: [deep] } } }],
      });
      expectErrorEnvelope(tooDeep, 400);
      expect(tooDeep.body.error.message).toContain(`nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);

      expectErrorEnvelope(await post(`${cr}/content`, { changes: [{ operation: 'insert_page', document: { document: [] } }] }), 400);
      expect((await get(`${cr}/content/pages`).expect(200)).body.pages).toEqual([]);
    });
  });

  describe('GET /v1/spaces/{spaceId}/documents/{documentId} (getDocumentById)', () => {
    it('401 without a token, 404 for an unknown id, another space’s body or a stranger; 200 with the stored document', async () => {
      const markdown = `Own body ${Date.now()}\n`;
      const space = await spaceWith([{ operation: 'insert_page', title: 'Mine', document: { markdown } }]);
      const other = await spaceWith([{ operation: 'insert_page', title: 'Theirs', document: { markdown: `Other body ${Date.now()}\n` } }]);
      const [pageId] = space.pages;
      const page = (await get(`/v1/spaces/${space.id}/content/page/${pageId}`).expect(200)).body;
      const url = `/v1/spaces/${space.id}/documents/${page.documentId}`;

      expectErrorEnvelope(await t.http.get(url), 401);
      expectErrorEnvelope(await get(`/v1/spaces/${space.id}/documents/${'0'.repeat(64)}`), 404);
      expectErrorEnvelope(await get(`/v1/spaces/${other.id}/documents/${page.documentId}`), 404);
      expectErrorEnvelope(await get(url, outsider), 404);

      const res = await get(`${url}?schema=current`).expect(200);
      expectContract(res, 'getDocumentById');
      expect(res.body).toEqual(markdownToDocument(markdown));
    });
  });
});

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
// A small bound, so that a compaction takes tens of pages: a layer stores at most max(20, 10% of its base's pages) page rows.
const MIN_ROWS = 20;

/**
 * Revisions written as layers over a full base (issue 12): what a layer stores follows the change,
 * and everything read through the views is what the same content written full reads back.
 */
describe('revision layers', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ REVISION_LAYER_MIN_ROWS: String(MIN_ROWS) });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body?: object) =>
      t.http
        .post(path)
        .set(...actor.auth)
        .send(body),
  });
  const admin = () => as(org.admin);
  const tx = <T>(work: (em: EntityManager) => Promise<T>) => t.dataSource.transaction(work);

  const stored = async (revisionId: string) => {
    const [row]: { base_id: string | null; pages: number; tombstones: number; links: number }[] = await t.dataSource.query(
      `SELECT r.base_id,
              (SELECT count(*)::int FROM revision_page_rows p WHERE p.revision_id = r.id) AS pages,
              (SELECT count(*)::int FROM revision_page_rows p WHERE p.revision_id = r.id AND p.deleted) AS tombstones,
              (SELECT count(*)::int FROM revision_link_rows l WHERE l.revision_id = r.id) AS links
         FROM revisions r WHERE r.id = $1`,
      [revisionId],
    );
    return row;
  };

  /** The same content as `revisionId` (its resolved pages and files), written full by `RevisionWriter`: paths and links derived again from scratch. */
  async function writtenFull(spaceId: string, revisionId: string): Promise<string> {
    const pages: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_pages WHERE revision_id = $1 ORDER BY page_id`, [revisionId]);
    const files: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_files WHERE revision_id = $1 ORDER BY file_id`, [revisionId]);
    const revision = await tx((em) =>
      t.app.get(RevisionWriter).write(
        {
          spaceId,
          parents: [revisionId],
          type: 'edits',
          createdBy: null,
          pages: pages.map((row) =>
            documentPage({
              pageId: row.page_id as string,
              parentId: row.parent_id as string | null,
              position: row.position as number,
              title: row.title as string,
              slug: row.slug as string,
              documentId: row.document_id as string | null,
              createdAt: row.created_at as Date,
              updatedAt: row.updated_at as Date,
            }),
          ),
          files: files.map((row) => ({
            fileId: row.file_id as string,
            name: row.name as string,
            contentType: row.content_type as string,
            size: Number(row.size),
            width: row.width as number | null,
            height: row.height as number | null,
            blobId: row.blob_id as string,
            createdAt: row.created_at as Date,
          })),
        },
        em,
      ),
    );
    return revision.id;
  }

  /** What the API and the link rows say of a revision, without its own id. */
  async function readBack(spaceId: string, revisionId: string) {
    const content = await admin().get(`/v1/spaces/${spaceId}/revisions/${revisionId}?metadata=false`).expect(200);
    const links: { target_key: string; status: string; target: object; pages: string[] }[] = await t.dataSource.query(
      `SELECT target_key, status, target, pages FROM revision_links WHERE revision_id = $1 ORDER BY target_key`,
      [revisionId],
    );
    const { id: _id, parents: _parents, createdAt: _createdAt, urls: _urls, type: _type, ...rest } = content.body;
    // A delta appends the pages a link gains, and a path link keeps the href of the page that wrote it
    // first, where a full write takes both in tree order: compared as sets, and without that href.
    return {
      // (The active revision's pages have the space's urls, another revision's pages urls under /~/revisions/.)
      content: JSON.parse(JSON.stringify(rest).replaceAll(`/~/revisions/${revisionId}`, '').replaceAll(revisionId, 'REV')),
      links: links.map((link) => ({ ...link, target: link.target_key.startsWith('path:') ? null : link.target, pages: [...link.pages].sort() })),
    };
  }
  const expectSameAsFull = async (spaceId: string, revisionId: string) =>
    expect(await readBack(spaceId, revisionId)).toEqual(await readBack(spaceId, await writtenFull(spaceId, revisionId)));

  const body = (group: number, i: number) =>
    `Page ${group}.${i}: [next](./doc-${i + 1}.md), [home](/pages/d0_0), [over](../group-1/doc-1.md), ![logo](/files/f1), [out](https://example.com/${group}).`;

  /** A full revision of 3 groups of 10 documents (33 pages) and one file. */
  async function base(spaceId: string): Promise<string> {
    const pages: DraftPage[] = [];
    for (let group = 0; group < 3; group++) {
      pages.push(documentPage({ pageId: `g${group}`, parentId: null, position: group, title: `Group ${group}`, slug: `group-${group}`, markdown: '' }));
      for (let i = 0; i < 10; i++) {
        pages.push(
          documentPage({
            pageId: `d${group}_${i}`,
            parentId: `g${group}`,
            position: i,
            title: `Doc ${group}.${i}`,
            slug: `doc-${i}`,
            markdown: body(group, i),
          }),
        );
      }
    }
    const files: DraftFile[] = [{ fileId: 'f1', name: 'logo.png', contentType: 'image/png', size: PNG.length, width: 1, height: 1, data: PNG }];
    return (await tx((em) => t.app.get(RevisionWriter).write({ spaceId, parents: [], type: 'edits', createdBy: null, pages, files }, em))).id;
  }

  const page = async (spaceId: string, revisionId: string, pageId: string): Promise<DraftPage> => {
    const [row]: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM revision_pages WHERE revision_id = $1 AND page_id = $2`, [
      revisionId,
      pageId,
    ]);
    return documentPage({
      pageId,
      parentId: row.parent_id as string | null,
      position: row.position as number,
      title: row.title as string,
      slug: row.slug as string,
      documentId: row.document_id as string | null,
    });
  };
  const delta = (spaceId: string, baseId: string, change: Partial<RevisionDelta>) =>
    tx((em) =>
      t.app
        .get(RevisionDeltaWriter)
        .write({ spaceId, base: baseId, parents: [baseId], type: 'edits', createdBy: null, pages: [], removed: [], files: [], ...change }, em),
    );

  it('stores only what changed, over the full base, and reads back as the same content written full', async () => {
    const space = await createSpace(t, org);
    const full = await base(space.id);
    expect(await stored(full)).toEqual({ base_id: null, pages: 33, tombstones: 0, links: expect.any(Number) });

    // A body changed, a page inserted, a linked page removed, a file added.
    const a = await delta(space.id, full, {
      pages: [
        { ...(await page(space.id, full, 'd0_1')), markdown: 'Now [five](./doc-5.md), [two](/files/f2) and [gone](../group-2/doc-9.md).' },
        documentPage({ pageId: 'n1', parentId: 'g1', position: 10, title: 'New', slug: 'new', markdown: 'Back to [two](./doc-2.md) and [new](./new.md).' }),
      ],
      removed: ['d2_9'],
      files: [{ fileId: 'f2', name: 'two.png', contentType: 'image/png', size: PNG.length, width: 1, height: 1, data: PNG }],
    });
    expect(a.stored.layer).toBe(true);
    const layerA = await stored(a.revision.id);
    expect(layerA).toMatchObject({ base_id: full, pages: 3, tombstones: 1 });
    // Links: only the keys whose pages or status changed (not the base's ~70).
    expect(layerA.links).toBeLessThan(15);
    await expectSameAsFull(space.id, a.revision.id);

    // The tombstoned page is gone from pages, paths and links.
    await admin().get(`/v1/spaces/${space.id}/revisions/${a.revision.id}/page/d2_9`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/revisions/${a.revision.id}/path/group-2/doc-9`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/revisions/${full}/path/group-2/doc-9`).expect(200);
    const linking: unknown[] = await t.dataSource.query(`SELECT 1 FROM revision_links WHERE revision_id = $1 AND 'd2_9' = ANY(pages)`, [a.revision.id]);
    expect(linking).toEqual([]);
    // Backlinks of the logo (the route's query): every document but the changed d0_1 and the removed d2_9.
    const logo = await t.app.get(LinksRepository).backlinks(a.revision.id, 'file:f1', { limit: 100 });
    expect(logo.items.map((p) => p.pageId).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `d${Math.floor(i / 10)}_${i % 10}`)
        .filter((id) => id !== 'd0_1' && id !== 'd2_9')
        .sort(),
    );
    const [toGone]: { status: string }[] = await t.dataSource.query(
      `SELECT status FROM revision_links WHERE revision_id = $1 AND target_key = 'path:group-2/doc-9'`,
      [a.revision.id],
    );
    expect(toGone.status).toBe('broken');

    // On top of the layer: a group moved (its pages' paths change), a page renamed (links to its old path break).
    const b = await delta(space.id, a.revision.id, {
      pages: [
        { ...(await page(space.id, a.revision.id, 'g0')), parentId: 'g1', position: 11 },
        { ...(await page(space.id, a.revision.id, 'd1_2')), slug: 'doc-two' },
      ],
    });
    const layerB = await stored(b.revision.id);
    // Depth 1: the full base stays the base; the layer carries layer A's 3 rows, the 2 changed pages and the 10 moved below g0 (d0_1 among them).
    expect(layerB).toMatchObject({ base_id: full, pages: 14, tombstones: 1 });
    expect(b.delta.changed.sort()).toEqual(['d1_2', 'g0', ...Array.from({ length: 10 }, (_, i) => `d0_${i}`)].sort());
    const moved = await admin().get(`/v1/spaces/${space.id}/revisions/${b.revision.id}/path/group-1/group-0/doc-3`).expect(200);
    expect(moved.body.id).toBe('d0_3');
    await admin().get(`/v1/spaces/${space.id}/revisions/${b.revision.id}/path/group-0/doc-3`).expect(404);
    await expectSameAsFull(space.id, b.revision.id);

    // A cycle and a duplicate sibling slug are refused, and write nothing.
    await expect(delta(space.id, b.revision.id, { pages: [{ ...(await page(space.id, b.revision.id, 'g1')), parentId: 'd0_3' }] })).rejects.toThrow(/cycle/);
    await expect(delta(space.id, b.revision.id, { pages: [{ ...(await page(space.id, b.revision.id, 'd1_3')), slug: 'doc-4' }] })).rejects.toThrow(/slug/);

    // Past the bound (max(20, 10% of 32 pages)), the revision is written full.
    const edits = await Promise.all(
      Array.from({ length: 10 }, (_, i) => [`d1_${i}`, `d2_${i}`])
        .flat()
        .filter((id) => id !== 'd2_9')
        .map(async (id) => ({ ...(await page(space.id, b.revision.id, id)), markdown: `Edited ${id}: [home](/pages/d0_0).` })),
    );
    const c = await delta(space.id, b.revision.id, { pages: edits });
    expect(c.stored.layer).toBe(false);
    expect(await stored(c.revision.id)).toMatchObject({ base_id: null, pages: 33, tombstones: 0 });
    await expectSameAsFull(space.id, c.revision.id);
    // A layer over the compacted revision is small again.
    const d = await delta(space.id, c.revision.id, { pages: [{ ...(await page(space.id, c.revision.id, 'd1_1')), title: 'Retitled' }] });
    expect(await stored(d.revision.id)).toMatchObject({ base_id: c.revision.id, pages: 1 });

    // A full revision a layer uses cannot be deleted on its own; the space's purge removes them together.
    await expect(t.dataSource.query(`DELETE FROM revisions WHERE id = $1`, [full])).rejects.toThrow(/foreign key/);
    await t.dataSource.query(`DELETE FROM spaces WHERE id = $1`, [space.id]);
    expect(await t.dataSource.query(`SELECT 1 FROM revisions WHERE space_id = $1`, [space.id])).toEqual([]);
  });

  it('a merge of a small change request into a larger space writes a layer; the removed page is gone from pages, paths, links and backlinks', async () => {
    const space = await createSpace(t, org);
    const cr = async () => {
      const res = await admin().post(`/v1/spaces/${space.id}/change-requests`, { subject: 'edits' }).expect(201);
      return `/v1/spaces/${space.id}/change-requests/${res.body.id}`;
    };
    const first = await cr();
    const inserts = Array.from({ length: 40 }, (_, i) => ({
      operation: 'insert_page',
      title: `Page ${i}`,
      slug: `page-${i}`,
      document: { markdown: i === 39 ? 'The last page.' : `Page ${i}, see [the last](./page-39.md).` },
    }));
    await admin()
      .post(`${first}/content`, { changes: inserts.slice(0, 20) })
      .expect(200);
    await admin()
      .post(`${first}/content`, { changes: inserts.slice(20) })
      .expect(200);
    await admin().post(`${first}/merge`).expect(200);
    const tree = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    const ids: Record<string, string> = Object.fromEntries(tree.body.pages.map((p: { slug: string; id: string }) => [p.slug, p.id]));
    const main = (await admin().get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    expect((await stored(main)).pages).toBe(40);

    const second = await cr();
    await admin()
      .post(`${second}/content`, {
        changes: [
          { operation: 'update_page', page: ids['page-1'], document: { markdown: 'Edited, no links.' } },
          // The last of its siblings: removing the first would renumber every sibling's position (all rows changed).
          { operation: 'delete_page', page: ids['page-39'] },
        ],
      })
      .expect(200);
    await admin().post(`${second}/merge`).expect(200);
    const merged = (await admin().get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    expect(await stored(merged)).toMatchObject({ base_id: main, pages: 2, tombstones: 1 });

    await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-39']}`).expect(404);
    await admin().get(`/v1/spaces/${space.id}/content/path/page-39`).expect(404);
    expect((await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-1']}`).expect(200)).body.markdown).toBe('Edited, no links.');
    const links = await admin().get(`/v1/spaces/${space.id}/content/page/${ids['page-2']}/links`).expect(200);
    expect(links.body.items.map((link: { status: string }) => link.status)).toEqual(['broken']);
    const pages = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    expect(pages.body.pages).toHaveLength(39);
    const broken = (await admin().get(`/v1/spaces/${space.id}/links?status=broken`).expect(200)).body.items;
    // Pages 0–19 were written before page 39 existed (their relative link stayed a path), 20–38 after (a page ref): both broken now.
    expect(broken.map((link: { targetReference: { kind: string } }) => link.targetReference.kind)).toEqual(['url', 'url']);
    expect(await stored(merged)).toMatchObject({ links: 2 });
    await expectSameAsFull(space.id, merged);
  });
});
