import { markdownToDocument } from '../../src/modules/content/document';
import { FillDocumentsJob } from '../../src/modules/content/fill-documents.job';
import { MAX_DOCUMENT_DEPTH } from '../../src/modules/content/document/document-input';
import { createOrganization, createUser, Actor, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
