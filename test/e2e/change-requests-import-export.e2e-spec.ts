import { createOrganization, OrgFixture, addMember, Actor } from '../support/builders';
import { expectErrorEnvelope, expectContract } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, serveWebsite, Website } from '../support/website-fixture';
import { ChangeRequestPdfService } from '../../src/modules/change-requests/pdf/change-request-pdf.service';
import { PdfRenderJobs } from '../../src/modules/change-requests/pdf/render-pdf.job';

describe('change requests (website import into a change request)', () => {
  let t: TestApp;
  let site: Website;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite(DOCS_SITE);
    org = await createOrganization(t);
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const http = () => ({
    get: (path: string) => t.http.get(path).set(...org.admin.auth),
    post: (path: string, body: object) =>
      t.http
        .post(path)
        .set(...org.admin.auth)
        .send(body),
  });

  it('imports into the change request only (main untouched), at the top level or under a page', async () => {
    const space = await createSpace(t, org);
    const cr = (await http().post(`/v1/spaces/${space.id}/change-requests`, {}).expect(201)).body;
    const url = `/v1/spaces/${space.id}/change-requests/${cr.number}`;
    const res = await http()
      .post(`${url}/content/import`, { url: `${site.origin}/docs/`, source: 'website' })
      .expect(201);
    expect(res.body.importedResources).toBeGreaterThan(1);
    expect((await http().get(url).expect(200)).body.revision).toBe(res.body.revision);
    const pages = (await http().get(`${url}/content/pages`).expect(200)).body.pages as { id: string; title: string }[];
    expect(pages.length).toBeGreaterThan(0);
    expect((await http().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages).toEqual([]);

    const under = pages[0].id;
    await http()
      .post(`${url}/content/page/${under}/import`, { url: `${site.origin}/docs/`, source: 'website' })
      .expect(201);
    const after = (await http().get(`${url}/content/pages`).expect(200)).body.pages as { id: string; pages: unknown[] }[];
    expect(after.length).toBe(pages.length);
    expect(after.find((page) => page.id === under)?.pages.length).toBeGreaterThan(0);
    expectErrorEnvelope(await http().post(`${url}/content/page/missing/import`, { url: `${site.origin}/docs/`, source: 'website' }), 404);

    await t.http
      .patch(url)
      .set(...org.admin.auth)
      .send({ status: 'archived' })
      .expect(200);
    expectErrorEnvelope(await http().post(`${url}/content/import`, { url: `${site.origin}/docs/`, source: 'website' }), 409);
  });
});

/**
 * The PDF render job: with PDF_RENDER_WAIT_MS=0 the url never waits, so the pending answer, the
 * reuse of a render, a failed render, the job's idempotency and the purge can be seen.
 */
describe('change request PDF on the job queue', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: Actor;

  beforeAll(async () => {
    t = await createTestApp({ PDF_RENDER_WAIT_MS: '0', JOBS_ENABLED: 'true' });
    org = await createOrganization(t);
    reader = await addMember(t, org, 'read');
  });
  afterAll(() => t.close());

  const get = (path: string, actor: Actor = reader) =>
    t.http
      .get(path)
      .set(...actor.auth)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });

  /** A change request with one page; its PDF url's path. */
  async function printable(title = 'Queued Page'): Promise<{ crUrl: string; crId: string; pageId: string }> {
    const space = await createSpace(t, org);
    const cr = await t.http
      .post(`/v1/spaces/${space.id}/change-requests`)
      .set(...org.admin.auth)
      .send({ subject: 'print me' })
      .expect(201);
    const crUrl = `/v1/spaces/${space.id}/change-requests/${cr.body.id}`;
    const res = await t.http
      .post(`${crUrl}/content?compat=false`)
      .set(...org.admin.auth)
      .send({ changes: [{ operation: 'insert_page', title, document: { markdown: 'body' } }] })
      .expect(200);
    return { crUrl, crId: cr.body.id, pageId: res.body.changes[0].page.id };
  }

  async function pdfUrl(crUrl: string, query = ''): Promise<string> {
    const link = await t.http
      .get(`${crUrl}/pdf${query}`)
      .set(...reader.auth)
      .expect(200);
    expectContract(link, 'getChangeRequestPDF');
    const url = new URL(link.body.url);
    return url.pathname + url.search;
  }

  /** Fetches the url until it stops answering 202 (the job runs within a poll interval or two). */
  async function fetchUntilDone(path: string) {
    for (let i = 0; i < 100; i++) {
      const res = await get(path);
      if (res.status !== 202) return res;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('render still pending');
  }

  const renders = async (crId: string) =>
    (await t.dataSource.query(
      `SELECT id, status, page_id, only_page, created_at FROM change_request_pdf_renders WHERE change_request_id = $1 ORDER BY created_at`,
      [crId],
    )) as {
      id: string;
      status: string;
      page_id: string;
      only_page: boolean;
    }[];

  it('answers 202 {status: pending} with Retry-After while the job runs, then the PDF; one render per key', async () => {
    const { crUrl, crId, pageId } = await printable();
    const path = await pdfUrl(crUrl);
    expect(await renders(crId)).toEqual([expect.objectContaining({ status: 'pending', page_id: '', only_page: false })]);

    const done = await fetchUntilDone(path);
    expect(done.status).toBe(200);
    expect(done.headers['content-type']).toBe('application/pdf');
    expect((done.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');

    // A render still pending (held there: the job has already run) answers 202; the job's run makes it 200.
    await t.dataSource.query(`UPDATE change_request_pdf_renders SET status = 'pending', data = NULL WHERE change_request_id = $1`, [crId]);
    const pending = await t.http.get(path).set(...reader.auth);
    expect(pending.status).toBe(202);
    expect(pending.headers['retry-after']).toBe('1');
    expect(pending.body).toEqual({ status: 'pending' });
    await t.app.get(ChangeRequestPdfService).renderJob((await renders(crId))[0].id, false);
    expect((await get(path).expect(200)).body.subarray(0, 5).toString()).toBe('%PDF-');

    // Asking again for the same key reuses the finished render: served at once, no second row.
    const again = await pdfUrl(crUrl);
    expect(again).toBe(path);
    expect((await get(again).expect(200)).body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await renders(crId)).toHaveLength(1);

    // Another key (one page) is another render.
    const one = await pdfUrl(crUrl, `?only=true&page=${pageId}`);
    expect((await fetchUntilDone(one)).status).toBe(200);
    expect(await renders(crId)).toEqual([
      expect.objectContaining({ status: 'ready', page_id: '', only_page: false }),
      expect.objectContaining({ status: 'ready', page_id: pageId, only_page: true }),
    ]);
  });

  it('a failed render answers 422 naming the cause; asking for the url again renders it anew', async () => {
    const { crUrl, crId } = await printable();
    const path = await pdfUrl(crUrl);
    expect((await fetchUntilDone(path)).status).toBe(200);
    await t.dataSource.query(`UPDATE change_request_pdf_renders SET status = 'failed', data = NULL, error = 'font missing' WHERE change_request_id = $1`, [
      crId,
    ]);

    expectErrorEnvelope(await t.http.get(path).set(...reader.auth), 422, /could not be rendered: font missing/);
    expect(await pdfUrl(crUrl)).toBe(path);
    const res = await fetchUntilDone(path);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('the job is idempotent and fails at once for a revision that does not exist', async () => {
    const { crUrl, crId } = await printable();
    const path = await pdfUrl(crUrl);
    expect((await fetchUntilDone(path)).status).toBe(200);
    const [render] = await renders(crId);
    const pdfs = t.app.get(ChangeRequestPdfService);
    const before = (await t.dataSource.query(`SELECT data, finished_at FROM change_request_pdf_renders WHERE id = $1`, [render.id])) as {
      data: Buffer;
      finished_at: Date;
    }[];
    await pdfs.renderJob(render.id, false);
    const after = (await t.dataSource.query(`SELECT data, finished_at FROM change_request_pdf_renders WHERE id = $1`, [render.id])) as {
      data: Buffer;
      finished_at: Date;
    }[];
    expect(after).toEqual(before);

    await t.dataSource.query(
      `INSERT INTO change_request_pdf_renders (id, change_request_id, revision_id, page_id, only_page, status) VALUES ('render-x', $1, 'no-such-revision', '', false, 'pending')`,
      [crId],
    );
    await pdfs.renderJob('render-x', false);
    const [failed] = (await t.dataSource.query(`SELECT status, error FROM change_request_pdf_renders WHERE id = 'render-x'`)) as {
      status: string;
      error: string;
    }[];
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/no-such-revision/);
  });

  it('old renders and stale pending ones are purged; a purged url renders again when fetched', async () => {
    const { crUrl, crId } = await printable();
    const path = await pdfUrl(crUrl);
    expect((await fetchUntilDone(path)).status).toBe(200);
    const { crId: otherId, crUrl: otherUrl } = await printable();
    await pdfUrl(otherUrl);
    const { crId: freshId, crUrl: freshUrl } = await printable();
    await pdfUrl(freshUrl);
    await t.dataSource.query(`UPDATE change_request_pdf_renders SET created_at = now() - interval '25 hours' WHERE change_request_id = $1`, [crId]);
    await t.dataSource.query(`UPDATE change_request_pdf_renders SET status = 'pending', created_at = now() - interval '2 hours' WHERE change_request_id = $1`, [
      otherId,
    ]);

    expect(await t.app.get(PdfRenderJobs).purge()).toBeGreaterThanOrEqual(2);
    expect(await renders(crId)).toHaveLength(0);
    expect(await renders(otherId)).toHaveLength(0);
    expect(await renders(freshId)).toHaveLength(1);

    const res = await fetchUntilDone(path);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    expect(await renders(crId)).toEqual([expect.objectContaining({ status: 'ready' })]);
  });

  it('refuses a page that is not in the revision before queueing anything', async () => {
    const { crUrl, crId } = await printable();
    const path = await pdfUrl(crUrl);
    expectErrorEnvelope(await t.http.get(path.replace('revision=', 'page=nope&revision=')).set(...reader.auth), 404);
    expect(await renders(crId)).toHaveLength(1);
  });
});
