import { SearchIndexWritesRepository } from '../../src/modules/space-writes/search-index-writes.repository';
import { inflateSync } from 'node:zlib';
import { Actor, OrgFixture, addMember, createOrganization, createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { TestApp, createTestApp } from '../support/test-app';
import { itChecksAccess } from '../support/access-checks';
import { createTeam } from '../support/org-admin-builders';
import { DOCS_SITE, Website, serveWebsite } from '../support/website-fixture';
import { ChangeRequestPdfService } from '../../src/modules/change-requests/pdf/change-request-pdf.service';
import { PdfRenderJobs } from '../../src/modules/change-requests/pdf/render-pdf.job';
import { ChangeRequestsService } from '../../src/modules/change-requests/change-requests.service';
import { ReviewsService } from '../../src/modules/change-requests/reviews/reviews.service';
import { MERGE_RULES_CONTEXT_PRESENTER, type MergeRulesContextPresenter } from '../../src/modules/change-requests/reviews/review.read-model';
import type { MergeRulesEvaluationContextJson } from '../../src/modules/change-requests/reviews/review.presenter';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { User } from '../../src/modules/users/user.entity';
import { UsersService } from '../../src/modules/users/users.service';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The text a PDF shows: its content streams inflated, the strings of its text operators decoded. */
function pdfText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const texts: string[] = [];
  const stream = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = stream.exec(source))) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    let body: string;
    try {
      body = inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      body = source.slice(start, end);
    }
    for (const hex of body.matchAll(/<([0-9a-fA-F]+)>/g)) texts.push(Buffer.from(hex[1], 'hex').toString('latin1'));
    texts.push(' ');
  }
  return texts.join('');
}

const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

describe('change requests (authoring, content, update, merge, PDF)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let outsider: Actor;
  let reader: Actor;
  let editor: Actor;
  let reviewer: Actor;

  beforeAll(async () => {
    // Workers on: the PDF test waits for its render job.
    t = await createTestApp({ JOBS_ENABLED: 'true' });
    org = await createOrganization(t);
    outsider = await createUser(t);
    reader = await addMember(t, org, 'read');
    editor = await addMember(t, org, 'edit');
    reviewer = await addMember(t, org, 'review');
  });
  afterAll(() => t.close());

  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body?: object) => {
      const req = t.http.post(path).set(...actor.auth);
      return body === undefined ? req : req.send(body);
    },
    patch: (path: string, body: object) =>
      t.http
        .patch(path)
        .set(...actor.auth)
        .send(body),
  });
  const admin = () => as(org.admin);

  async function newChangeRequest(spaceId: string, actor: Actor = org.admin): Promise<{ id: string; number: number; url: string }> {
    const res = await as(actor).post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return { id: res.body.id, number: res.body.number, url: `/v1/spaces/${spaceId}/change-requests/${res.body.id}` };
  }
  const changes = (url: string, list: object[], actor: Actor = org.admin, query = '') => as(actor).post(`${url}/content${query}`, { changes: list });

  /** A space whose main holds the given pages (inserted and merged through a change request): page ids by title. */
  async function spaceWith(pages: { title: string; markdown: string }[]): Promise<{ id: string; pages: Record<string, string> }> {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(
      cr.url,
      pages.map((page) => ({ operation: 'insert_page', title: page.title, document: { markdown: page.markdown } })),
    ).expect(200);
    await admin().post(`${cr.url}/merge`).expect(200);
    const tree = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    return { id: space.id, pages: Object.fromEntries(tree.body.pages.map((page: { title: string; id: string }) => [page.title, page.id])) };
  }
  const mainPage = async (spaceId: string, pageId: string) =>
    (await admin().get(`/v1/spaces/${spaceId}/content/page/${pageId}?format.markdown.refs=stable`).expect(200)).body;
  const activeRevision = async (spaceId: string) => (await admin().get(`/v1/spaces/${spaceId}`).expect(200)).body.revision as string;

  describe('access', () => {
    it('401 without a token, 404 from another organization, 403 for a reader who writes and an editor who merges', async () => {
      const space = await createSpace(t, org);
      const cr = await newChangeRequest(space.id);
      const insert = [{ operation: 'insert_page', title: 'x', document: { markdown: 'x' } }];
      expectErrorEnvelope(await t.http.post(`${cr.url}/content`).send({ changes: insert }), 401);
      expectErrorEnvelope(await t.http.get(`${cr.url}/content`), 401);
      expectErrorEnvelope(await changes(cr.url, insert, outsider), 404);
      expectErrorEnvelope(await as(outsider).get(`${cr.url}/content/pages`), 404);
      expectErrorEnvelope(await changes(cr.url, insert, reader), 403);
      expectErrorEnvelope(await as(reader).post(`${cr.url}/update`), 403);
      expectErrorEnvelope(await as(editor).post(`${cr.url}/merge`), 403);
      expectErrorEnvelope(await changes(`/v1/spaces/${space.id}/change-requests/unknown-cr`, insert), 404);
    });
  });

  describe('batch authoring', () => {
    it('inserts, updates, moves, deletes pages and inserts files in one revision; main is untouched until merge', async () => {
      const space = await createSpace(t, org);
      const mainBefore = await activeRevision(space.id);
      const cr = await newChangeRequest(space.id, editor);
      const res = await changes(
        cr.url,
        [
          { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
          {
            operation: 'insert_page',
            ref: 'guide',
            document: { markdown: '# Guide\n\nSee [install](./install.md) and ![logo](./logo.png).\n' },
          },
          { operation: 'insert_page', ref: 'install', title: 'Install', slug: 'install', document: { markdown: 'Run it. Back to [guide](./guide.md).' } },
          { operation: 'insert_page', title: 'Doomed', document: {} },
        ],
        editor,
        '?compat=false',
      ).expect(200);
      expectContract(res, 'updateChangeRequestContent');
      expect(res.body.changes.map((change: { object: string }) => change.object)).toEqual(['created_page', 'created_page', 'created_page']);
      expect(res.body.insertedFiles).toHaveLength(1);
      const fileId = res.body.insertedFiles[0].id;
      expect(res.body.insertedFiles[0].dimensions).toEqual({ width: 1, height: 1 });
      const [guide, install, doomed] = res.body.changes.map((change: { page: { id: string } }) => change.page.id);
      expect(res.body.changes[0].ref).toBe('guide');
      expect(res.body.changeRequest.revision).not.toBe(mainBefore);

      const page = await as(reader).get(`${cr.url}/content/page/${guide}?format.markdown.refs=stable`).expect(200);
      expectContract(page, 'getPageInChangeRequestById');
      expect(page.body.title).toBe('Guide');
      expect(page.body.markdown).toContain(`[install](/pages/${install})`);
      expect(page.body.markdown).toContain(`![logo](/files/${fileId})`);
      expect(page.body.markdown).not.toContain('# Guide');

      // Main has not changed.
      expect(await activeRevision(space.id)).toBe(mainBefore);
      expect((await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages).toEqual([]);

      const second = await changes(cr.url, [
        { operation: 'update_page', page: install, title: 'Installation', slug: 'installation', into: guide },
        { operation: 'update_page', page: guide, document: { markdown: 'Start with [the install](./guide/installation.md).' } },
        { operation: 'delete_page', page: doomed },
      ]).expect(200);
      expectContract(second, 'updateChangeRequestContent');
      expect(second.body.object).toBe('change-request');

      const tree = await as(reader).get(`${cr.url}/content/pages`).expect(200);
      expectContract(tree, 'listPagesInChangeRequest');
      expect(tree.body.pages.map((p: { title: string }) => p.title)).toEqual(['Guide']);
      expect(tree.body.pages[0].pages.map((p: { title: string; path: string }) => [p.title, p.path])).toEqual([['Installation', 'guide/installation']]);
      const byPath = await as(reader).get(`${cr.url}/content/path/guide/installation`).expect(200);
      expectContract(byPath, 'getPageInChangeRequestByPath');
      expect(byPath.body.id).toBe(install);
      const relinked = await as(reader).get(`${cr.url}/content/page/${guide}?format.markdown.refs=stable`).expect(200);
      expect(relinked.body.markdown).toBe(`Start with [the install](/pages/${install}).`);

      const revision = await as(reader).get(`${cr.url}/content`).expect(200);
      expectContract(revision, 'getRevisionOfChangeRequestById');
      const files = await as(reader).get(`${cr.url}/content/files`).expect(200);
      expectContract(files, 'listFilesInChangeRequestById');
      expect(files.body.items.map((file: { id: string }) => file.id)).toEqual([fileId]);
      expectContract(await as(reader).get(`${cr.url}/content/files/${fileId}`).expect(200), 'getFileInChangeRequestById');
      const backlinks = await as(reader).get(`${cr.url}/content/files/${fileId}/backlinks`).expect(200);
      expect(backlinks.body.items).toHaveLength(0); // the guide no longer shows the logo
      const links = await as(reader).get(`${cr.url}/content/page/${guide}/links`).expect(200);
      expect(links.body.items.map((link: { status: string }) => link.status)).toEqual(['in-app']);
      const pageBacklinks = await as(reader).get(`${cr.url}/content/page/${install}/backlinks`).expect(200);
      expect(pageBacklinks.body.items).toHaveLength(1);

      await admin().post(`${cr.url}/merge`).expect(200);
      const mainTree = await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200);
      expect(mainTree.body.pages.map((p: { title: string }) => p.title)).toEqual(['Guide']);
      expect((await admin().get(`/v1/spaces/${space.id}/search?query=installation`).expect(200)).body.items.length).toBeGreaterThan(0);
    });

    it('derives the links and search sections of a large body (parsed in the worker pool) as of a small one', async () => {
      const space = await createSpace(t, org);
      const cr = await newChangeRequest(space.id, editor);
      // Past TEXT_WORKER_MIN_LENGTH (16 KB): its links and sections come from the text worker pool.
      const filler = 'Plain words with *emphasis* and `code` in a long paragraph. '.repeat(400);
      const large = `# Big\n\n${filler}\n\nSee [the target](./target.md) and ![logo](./logo.png).\n\n## Wombatsection\n\nnumbatword lives here.\n`;
      expect(large.length).toBeGreaterThan(16 * 1024);
      const res = await changes(
        cr.url,
        [
          { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
          { operation: 'insert_page', ref: 'big', document: { markdown: large } },
          { operation: 'insert_page', ref: 'target', title: 'Target', slug: 'target', document: { markdown: 'Small.' } },
        ],
        editor,
        '?compat=false',
      ).expect(200);
      const [big, target] = res.body.changes.map((change: { page: { id: string } }) => change.page.id);
      const fileId = res.body.insertedFiles[0].id;
      const links = await as(reader).get(`${cr.url}/content/page/${big}/links`).expect(200);
      expect(links.body.items.map((link: { status: string }) => link.status)).toEqual(['in-app', 'in-app']);
      expect((await as(reader).get(`${cr.url}/content/page/${target}/backlinks`).expect(200)).body.items).toHaveLength(1);
      expect((await as(reader).get(`${cr.url}/content/files/${fileId}/backlinks`).expect(200)).body.items).toHaveLength(1);

      await admin().post(`${cr.url}/merge`).expect(200);
      const found = (await admin().get(`/v1/spaces/${space.id}/search?query=numbatword`).expect(200)).body.items;
      expect(found.map((item: { id: string }) => item.id)).toEqual([big]);
      expect(JSON.stringify(found[0])).toContain('wombatsection');
    });

    it('refuses an invalid batch with 400 naming the change, and writes nothing', async () => {
      const space = await createSpace(t, org);
      const cr = await newChangeRequest(space.id);
      const before = (await admin().get(cr.url).expect(200)).body.revision;
      const insert = { operation: 'insert_page', title: 'Fine', document: { markdown: 'ok' } };
      expectErrorEnvelope(await changes(cr.url, [insert, { operation: 'update_page', page: 'missing', title: 'x' }]), 400, /changes\[1\]/);
      expectErrorEnvelope(await changes(cr.url, [insert, { operation: 'explode' }]), 400, /changes\[1\]\.operation/);
      expectErrorEnvelope(await changes(cr.url, [insert, { ...insert, slug: 'fine' }]), 400, /changes\[1\]\.slug/);
      expectErrorEnvelope(await changes(cr.url, [{ operation: 'insert_page', title: 'x' }]), 400, /changes\[0\]\.document/);
      expectErrorEnvelope(await changes(cr.url, []), 400, /changes/);
      expectErrorEnvelope(await changes(cr.url, Array(51).fill(insert)), 400, /changes/);
      expect((await admin().get(cr.url).expect(200)).body.revision).toBe(before);
      expect((await admin().get(`${cr.url}/content/pages`).expect(200)).body.pages).toEqual([]);
      // 50 changes is the limit, inclusive.
      const fifty = Array.from({ length: 50 }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `body ${i}` } }));
      await changes(cr.url, fifty).expect(200);
      expect((await admin().get(`${cr.url}/content/pages`).expect(200)).body.pages).toHaveLength(50);
    });

    it('reverts a page to the base revision', async () => {
      const space = await spaceWith([{ title: 'Keep', markdown: 'original' }]);
      const cr = await newChangeRequest(space.id);
      await changes(cr.url, [{ operation: 'update_page', page: space.pages.Keep, document: { markdown: 'changed' } }]).expect(200);
      await changes(cr.url, [{ operation: 'delete_page', page: space.pages.Keep }]).expect(200);
      await changes(cr.url, [{ operation: 'revert_page', page: space.pages.Keep }]).expect(200);
      const page = await admin().get(`${cr.url}/content/page/${space.pages.Keep}`).expect(200);
      expect(page.body.markdown).toBe('original');
    });
  });

  describe('update from main and merge', () => {
    it('keeps non-conflicting edits to different lines of one page by two change requests through update and merge', async () => {
      const body = lines(20).join('\n');
      const space = await spaceWith([{ title: 'Shared', markdown: body }]);
      const id = space.pages.Shared;
      const a = await newChangeRequest(space.id);
      const b = await newChangeRequest(space.id);
      const edit = (at: number, text: string) => {
        const copy = lines(20);
        copy[at] = text;
        return copy.join('\n');
      };
      await changes(a.url, [{ operation: 'update_page', page: id, document: { markdown: edit(1, 'line 2 by A') } }]).expect(200);
      await changes(b.url, [{ operation: 'update_page', page: id, document: { markdown: edit(17, 'line 18 by B') } }]).expect(200);

      const merged = await as(reviewer).post(`${a.url}/merge`).expect(200);
      expectContract(merged, 'mergeChangeRequest');
      expect(merged.body.result).toBe('merge');
      expect(await activeRevision(space.id)).toBe(merged.body.revision);
      const afterA = await admin().get(a.url).expect(200);
      expect(afterA.body).toMatchObject({ status: 'merged', revisionMerged: merged.body.revision, outdated: false });

      const bBefore = await admin().get(b.url).expect(200);
      expect(bBefore.body.outdated).toBe(true);
      const updated = await admin().post(`${b.url}/update`).expect(200);
      expectContract(updated, 'updateChangeRequest');
      expect(updated.body.result).toBe('update');
      const bAfter = await admin().get(b.url).expect(200);
      expect(bAfter.body).toMatchObject({ outdated: false, revisionMergedAncestor: merged.body.revision, revision: updated.body.revision });
      const inB = await admin().get(`${b.url}/content/page/${id}`).expect(200);
      expect(inB.body.markdown).toContain('line 2 by A');
      expect(inB.body.markdown).toContain('line 18 by B');

      await admin().post(`${b.url}/merge`).expect(200);
      const main = await mainPage(space.id, id);
      expect(main.markdown.split('\n')).toEqual(
        edit(1, 'line 2 by A')
          .split('\n')
          .map((line, i) => (i === 17 ? 'line 18 by B' : line)),
      );
      const counters = (await admin().get(`/v1/spaces/${space.id}`).expect(200)).body;
      expect(counters.changeRequestsOpen).toBe(0);
    });

    it('answers 409 naming the page for overlapping edits, and leaves the space revision unchanged', async () => {
      const space = await spaceWith([{ title: 'Contested', markdown: lines(5).join('\n') }]);
      const id = space.pages.Contested;
      const a = await newChangeRequest(space.id);
      const b = await newChangeRequest(space.id);
      await changes(a.url, [{ operation: 'update_page', page: id, document: { markdown: 'line 1\nline 2\nA wrote this\nline 4\nline 5' } }]).expect(200);
      await changes(b.url, [{ operation: 'update_page', page: id, document: { markdown: 'line 1\nline 2\nB wrote that\nline 4\nline 5' } }]).expect(200);
      await admin().post(`${a.url}/merge`).expect(200);
      const before = await activeRevision(space.id);
      const bRevision = (await admin().get(b.url).expect(200)).body.revision;
      expectErrorEnvelope(await admin().post(`${b.url}/merge`), 409, /Contested/);
      expectErrorEnvelope(await admin().post(`${b.url}/update`), 409, /Contested/);
      expect(await activeRevision(space.id)).toBe(before);
      expect((await admin().get(b.url).expect(200)).body).toMatchObject({ status: 'open', revision: bRevision });
    });

    it('answers 409 when one side deletes a page the other edited', async () => {
      const space = await spaceWith([{ title: 'Fragile', markdown: 'one' }]);
      const id = space.pages.Fragile;
      const a = await newChangeRequest(space.id);
      const b = await newChangeRequest(space.id);
      await changes(a.url, [{ operation: 'delete_page', page: id }]).expect(200);
      await changes(b.url, [{ operation: 'update_page', page: id, document: { markdown: 'two' } }]).expect(200);
      await admin().post(`${a.url}/merge`).expect(200);
      const before = await activeRevision(space.id);
      expectErrorEnvelope(await admin().post(`${b.url}/merge`), 409, /Fragile.*deleted/);
      expect(await activeRevision(space.id)).toBe(before);
    });

    it('merges page-tree changes of both sides by page id', async () => {
      const space = await spaceWith([
        { title: 'One', markdown: 'one' },
        { title: 'Two', markdown: 'two' },
      ]);
      const a = await newChangeRequest(space.id);
      const b = await newChangeRequest(space.id);
      await changes(a.url, [{ operation: 'update_page', page: space.pages.Two, into: space.pages.One }]).expect(200);
      await changes(b.url, [
        { operation: 'insert_page', title: 'Three', document: { markdown: 'three' } },
        { operation: 'update_page', page: space.pages.One, title: 'One renamed' },
      ]).expect(200);
      await admin().post(`${a.url}/merge`).expect(200);
      await admin().post(`${b.url}/merge`).expect(200);
      const tree = (await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages;
      expect(tree.map((page: { title: string }) => page.title)).toEqual(['One renamed', 'Three']);
      expect(tree[0].pages.map((page: { title: string }) => page.title)).toEqual(['Two']);
    });

    it('merges from the rows that differ: settings, nested inserts, a new file, a renamed slug, while main changed other pages', async () => {
      const space = await spaceWith(['Guide', 'Install', 'Configure', 'Reference'].map((title) => ({ title, markdown: title.toLowerCase() })));
      const nest = await newChangeRequest(space.id);
      await changes(nest.url, [
        { operation: 'update_page', page: space.pages.Install, into: space.pages.Guide },
        { operation: 'update_page', page: space.pages.Configure, into: space.pages.Guide },
      ]).expect(200);
      await admin().post(`${nest.url}/merge`).expect(200);

      const a = await newChangeRequest(space.id);
      const b = await newChangeRequest(space.id);
      await changes(a.url, [
        { operation: 'update_page', page: space.pages.Install, emoji: '1f680', hidden: true },
        { operation: 'update_page', page: space.pages.Configure, noIndex: true },
        { operation: 'insert_page', title: 'FAQ', into: space.pages.Guide, at: 0, document: { markdown: 'faq' } },
        { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
      ]).expect(200);
      await changes(b.url, [
        { operation: 'update_page', page: space.pages.Reference, title: 'API reference' },
        { operation: 'insert_page', title: 'Changelog', document: { markdown: 'changes' } },
      ]).expect(200);
      await admin().post(`${b.url}/merge`).expect(200);
      await admin().post(`${a.url}/update`).expect(200);
      await admin().post(`${a.url}/merge`).expect(200);

      type TreeJson = { title: string; emoji?: string; hidden: boolean; noIndex: boolean; pages?: TreeJson[] };
      const tree: TreeJson[] = (await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages;
      expect(tree.map((page) => page.title)).toEqual(['Guide', 'API reference', 'Changelog']);
      const guide = tree[0].pages ?? [];
      expect(guide.map((page) => [page.title, page.emoji ?? null, page.hidden, page.noIndex])).toEqual([
        ['FAQ', null, false, false],
        ['Install', '1f680', true, false],
        ['Configure', null, false, true],
      ]);
      const files = (await admin().get(`/v1/spaces/${space.id}/content/files`).expect(200)).body.items;
      expect(files.map((file: { name: string }) => file.name)).toEqual(['logo.png']);

      // A renamed slug of a page main has: the revision is written whole.
      const c = await newChangeRequest(space.id);
      await changes(c.url, [{ operation: 'update_page', page: space.pages.Reference, slug: 'api' }]).expect(200);
      await admin().post(`${c.url}/merge`).expect(200);
      expect((await admin().get(`/v1/spaces/${space.id}/content/path/api`).expect(200)).body.id).toBe(space.pages.Reference);
      expect((await mainPage(space.id, space.pages.Install)).markdown).toBe('install');
      const after = (await admin().get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as TreeJson[];
      expect(after.map((page) => page.title)).toEqual(['Guide', 'API reference', 'Changelog']);
      expect((await admin().get(`/v1/spaces/${space.id}/content/files`).expect(200)).body.items).toHaveLength(1);
    });

    it('writes a merge as a delta whose links and search rows match the new tree', async () => {
      const space = await spaceWith([
        { title: 'Alpha', markdown: 'See [b](./bravo.md) and [out](https://example.com).' },
        { title: 'Charlie', markdown: 'Back to [alpha](./alpha.md). zebraword' },
      ]);
      const links = async () => (await admin().get(`/v1/spaces/${space.id}/links`).expect(200)).body;
      const before = await links();
      expect(before.stats.broken.total).toBe(1);
      const cr = await newChangeRequest(space.id);
      const res = await changes(
        cr.url,
        [
          { operation: 'insert_page', title: 'Bravo', document: { markdown: 'Bravo body with quokkaword, links [alpha](/pages/alpha).' } },
          { operation: 'delete_page', page: space.pages.Charlie },
        ],
        org.admin,
        '?compat=false',
      ).expect(200);
      const bravo = res.body.changes[0].page.id;
      await admin().post(`${cr.url}/merge`).expect(200);
      const after = await links();
      expect(after.stats.broken.total).toBe(0);
      const statuses = after.items.map((item: { status: string; targetReference: { kind: string; page?: { id: string }; url?: string } }) => [
        item.status,
        item.targetReference.kind,
        item.targetReference.page?.id ?? item.targetReference.url,
      ]);
      expect(statuses).toEqual(
        expect.arrayContaining([
          ['in-app', 'page', bravo],
          ['in-app', 'page', space.pages.Alpha],
          ['ok', 'url', 'https://example.com'],
        ]),
      );
      expect(after.items).toHaveLength(3);
      const search = async (word: string) => (await admin().get(`/v1/spaces/${space.id}/search?query=${word}`).expect(200)).body.items;
      expect((await search('quokkaword')).map((item: { id: string }) => item.id)).toEqual([bravo]);
      expect(await search('zebraword')).toEqual([]);
      // The rows the merge updated are the rows a rebuild from the new revision writes (title vector included).
      const rows = () =>
        t.dataSource.query(
          `SELECT page_id, title, path, description, ancestors, title_tsv::text AS title_tsv, tsv::text AS tsv FROM search_pages WHERE space_id = $1 ORDER BY page_id`,
          [space.id],
        );
      const incremental = await rows();
      expect(incremental.find((row: { page_id: string }) => row.page_id === bravo).title_tsv).toContain("'bravo'");
      const [{ revision_id: active }] = await t.dataSource.query(`SELECT revision_id FROM spaces WHERE id = $1`, [space.id]);
      await t.dataSource.transaction((em) => t.app.get(SearchIndexWritesRepository).rebuild(space.id, active, em));
      expect(incremental).toEqual(await rows());
    });

    it('refuses content changes, update and merge of a merged or archived change request (409)', async () => {
      const space = await spaceWith([{ title: 'P', markdown: 'p' }]);
      const merged = await newChangeRequest(space.id);
      await admin().post(`${merged.url}/merge`).expect(200);
      const insert = [{ operation: 'insert_page', title: 'late', document: { markdown: 'late' } }];
      expectErrorEnvelope(await changes(merged.url, insert), 409);
      expectErrorEnvelope(await admin().post(`${merged.url}/update`), 409);
      expectErrorEnvelope(await admin().post(`${merged.url}/merge`), 409);
      expectErrorEnvelope(await admin().patch(merged.url, { status: 'open' }), 409);
      const archived = await newChangeRequest(space.id);
      await admin().patch(archived.url, { status: 'archived' }).expect(200);
      expectErrorEnvelope(await changes(archived.url, insert), 409);
      expectErrorEnvelope(await admin().post(`${archived.url}/merge`), 409);
    });

    it('serializes concurrent merges without losing an edit', async () => {
      const space = await spaceWith(Array.from({ length: 4 }, (_, i) => ({ title: `Page ${i}`, markdown: `body ${i}` })));
      const crs = await Promise.all([0, 1, 2, 3].map(() => newChangeRequest(space.id)));
      await Promise.all(
        crs.map((cr, i) => changes(cr.url, [{ operation: 'update_page', page: space.pages[`Page ${i}`], document: { markdown: `edited ${i}` } }]).expect(200)),
      );
      const results = await Promise.all(crs.map((cr) => admin().post(`${cr.url}/merge`)));
      expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200]);
      for (let i = 0; i < 4; i++) expect((await mainPage(space.id, space.pages[`Page ${i}`])).markdown).toBe(`edited ${i}`);
      const revisions = new Set(results.map((res) => res.body.revision));
      expect(revisions.size).toBe(4);
    });

    it('refuses merge while the space is locked (403)', async () => {
      const space = await spaceWith([{ title: 'L', markdown: 'l' }]);
      const cr = await newChangeRequest(space.id);
      await admin().patch(`/v1/spaces/${space.id}`, { editMode: 'locked' }).expect(200);
      expectErrorEnvelope(await admin().post(`${cr.url}/merge`), 403, /locked/);
      await admin().patch(`/v1/spaces/${space.id}`, { editMode: 'live' }).expect(200);
      await admin().post(`${cr.url}/merge`).expect(200);
    });
  });

  describe('PDF', () => {
    it('gives a bearer-checked URL serving a PDF of the pages in tree order, or of one page', async () => {
      const space = await createSpace(t, org);
      const cr = await newChangeRequest(space.id);
      const res = await changes(
        cr.url,
        [
          { operation: 'insert_files', files: [{ ref: 'dot.png', name: 'dot.png', contentType: 'image/png', base64: PNG }] },
          {
            operation: 'insert_page',
            title: 'Printable Title',
            document: {
              markdown: '## Section\n\nSome **bold** text with [a link](https://example.com).\n\n- one\n- two\n\n```\ncode here\n```\n\n![dot](./dot.png)\n',
            },
          },
          { operation: 'insert_page', title: 'Second Page', document: { markdown: 'second body' } },
        ],
        org.admin,
        '?compat=false',
      ).expect(200);
      const first = res.body.changes[0].page.id;

      const link = await as(reader).get(`${cr.url}/pdf`).expect(200);
      expectContract(link, 'getChangeRequestPDF');
      const url = new URL(link.body.url);
      expectErrorEnvelope(await t.http.get(url.pathname + url.search), 401);
      expectErrorEnvelope(await as(outsider).get(url.pathname + url.search), 404);
      const pdf = await as(reader)
        .get(url.pathname + url.search)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      const bytes = pdf.body as Buffer;
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      const text = pdfText(bytes);
      expect(text).toContain('Printable Title');
      expect(text.indexOf('Printable Title')).toBeLessThan(text.indexOf('Second Page'));

      const one = await as(reader).get(`${cr.url}/pdf?only=true&page=${first}`).expect(200);
      const oneUrl = new URL(one.body.url);
      const onePdf = await as(reader)
        .get(oneUrl.pathname + oneUrl.search)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      const oneText = pdfText(onePdf.body as Buffer);
      expect(oneText).toContain('Printable Title');
      expect(oneText).not.toContain('Second Page');
      expectErrorEnvelope(await as(reader).get(`${cr.url}/pdf?only=true`), 400, /page/);
      expectErrorEnvelope(await as(reader).get(`${cr.url}/pdf?only=true&page=nope`), 404);
    });
  });
});

describe('change request reviews, requested reviewers and contributors', () => {
  let t: TestApp;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  let author: Actor;
  let reviewer: Actor;
  let second: Actor;
  let reader: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    space = await createSpace(t, org);
    author = await addMember(t, org, 'edit');
    reviewer = await addMember(t, org, 'review');
    second = await addMember(t, org, 'review');
    reader = await addMember(t, org, 'read');
  });
  afterAll(() => t.close());

  const crs = (spaceId = space.id) => `/v1/spaces/${spaceId}/change-requests`;
  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body: object = {}) =>
      t.http
        .post(path)
        .set(...actor.auth)
        .send(body),
    put: (path: string, body: object) =>
      t.http
        .put(path)
        .set(...actor.auth)
        .send(body),
    del: (path: string) => t.http.delete(path).set(...actor.auth),
  });
  async function openChangeRequest(by: Actor = author, spaceId = space.id): Promise<string> {
    const res = await as(by).post(crs(spaceId), { subject: 'to review' }).expect(201);
    return `${crs(spaceId)}/${res.body.id as string}`;
  }
  const insertPage = (cr: string, title: string, by: Actor = author) =>
    as(by)
      .post(`${cr}/content`, { changes: [{ operation: 'insert_page', title, document: { markdown: `# ${title}\n\ntext` } }] })
      .expect(200);

  describe('reviews', () => {
    itChecksAccess(() => t, {
      given: async (o) => {
        const s = await createSpace(t, o);
        const res = await as(o.admin).post(crs(s.id)).expect(201);
        return `${crs(s.id)}/${res.body.id as string}`;
      },
      request: (_o, cr) => t.http.post(`${cr}/reviews`).send({ status: 'approved' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses an editor (review needs the review role) with 403, writing nothing',
        after: async (_o, cr) => {
          const rows = await t.dataSource.query(`SELECT 1 FROM change_request_reviews WHERE change_request_id = $1`, [cr.split('/').pop()]);
          expect(rows).toHaveLength(0);
        },
      },
    });

    it('role matrix: read may list, edit may request, review may submit, and the author may not approve', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Matrix');
      expectContract(await as(reader).get(`${cr}/reviews`).expect(200), 'getReviewsByChangeRequestId');
      expectErrorEnvelope(await as(reader).post(`${cr}/reviews`, { status: 'approved' }), 403);
      expectErrorEnvelope(await as(reader).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id] }), 403);
      expectErrorEnvelope(await as(reader).del(`${cr}/requested-reviewers/${reviewer.user.id}`), 403);
      expectErrorEnvelope(await as(author).post(`${cr}/reviews`, { status: 'approved' }), 403);
      // An admin who created the change request cannot approve it either.
      const own = await openChangeRequest(org.admin);
      expectErrorEnvelope(await as(org.admin).post(`${own}/reviews`, { status: 'approved' }), 403, /cannot approve/);
      const asked = await as(org.admin).post(`${own}/reviews`, { status: 'changes-requested' }).expect(201);
      expect(asked.body.status).toBe('changes-requested');
      const res = await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expectContract(res, 'submitChangeRequestReview');
    });

    it('submits a review pinned to the head, reads it, lists it; refuses bad input', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Pinned');
      const head = (await as(reader).get(cr).expect(200)).body.revision;
      const res = await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'please fix the title' } })
        .expect(201);
      expectContract(res, 'submitChangeRequestReview');
      expect(res.headers.location).toBe(res.body.urls.location);
      expect(res.body).toMatchObject({
        object: 'change-request-review',
        status: 'changes-requested',
        revision: head,
        outdated: false,
        reviewer: { id: reviewer.user.id },
      });
      expect(res.body.requestedBy).toBeUndefined();
      const one = await as(reviewer)
        .get(`${cr}/reviews/${res.body.id as string}`)
        .expect(200);
      expectContract(one, 'getChangeRequestReviewById');
      expect(one.body).toEqual(res.body);
      expectContract(
        await as(reader)
          .get(`${cr}/reviews/${res.body.id as string}`)
          .expect(200),
        'getChangeRequestReviewById',
      );
      const byNumber = cr.replace(/[^/]+$/, String((await as(reader).get(cr)).body.number));
      expect((await as(reader).get(`${byNumber}/reviews`).expect(200)).body.items.map((r: { id: string }) => r.id)).toEqual([res.body.id]);
      expectErrorEnvelope(await as(reader).get(`${cr}/reviews/nope`), 404);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, {}), 400, /status/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'rejected' }), 400, /status/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved', comment: { document: { nodes: [] } } }), 400, /comment/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved', comment: 'x' }), 400, /comment/);
      expectErrorEnvelope(await as(reviewer).post(`${crs()}/999999/reviews`, { status: 'approved' }), 404);
      expectErrorEnvelope(await as(reader).get(`${cr}/reviews?outdated=maybe`), 400, /outdated/);
    });

    it("a review's comment is a comment of the change request, shown as the public Comment until it is deleted", async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Commented');
      const crId = cr.split('/').pop() as string;
      const res = await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'please **fix** the title' } })
        .expect(201);
      expectContract(res, 'submitChangeRequestReview');
      const comment = res.body.comment;
      expect(comment).toMatchObject({
        object: 'comment',
        postedBy: { id: reviewer.user.id },
        body: { markdown: 'please **fix** the title' },
        status: 'open',
        target: { changeRequest: crId, review: res.body.id, revision: res.body.revision, space: space.id },
        permissions: { view: true, edit: true, delete: true },
      });
      // Among the change request's comments, counted as open.
      const listed = await as(reader).get(`${cr}/comments`).expect(200);
      expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([comment.id]);
      expect((await as(reader).get(cr)).body.comments).toBe(1);
      // As the reader sees it: their permissions, the document format when asked.
      const asDocument = await as(reader)
        .get(`${cr}/reviews/${res.body.id as string}?format=document`)
        .expect(200);
      expectContract(asDocument, 'getChangeRequestReviewById');
      expect(asDocument.body.comment.permissions).toMatchObject({ edit: false, delete: false });
      expect(asDocument.body.comment.body.document).toBeDefined();
      const list = await as(reader).get(`${cr}/reviews`).expect(200);
      expectContract(list, 'getReviewsByChangeRequestId');
      expect(list.body.items[0].comment.id).toBe(comment.id);
      // A review without comment has none.
      const plain = await as(second).post(`${cr}/reviews`, { status: 'approved', comment: {} }).expect(201);
      expect(plain.body.comment).toBeUndefined();
      // Deleting the comment takes it off the review; the review (and its status) stays.
      await as(reviewer)
        .del(`${cr}/comments/${comment.id as string}`)
        .expect(205);
      const after = await as(reader)
        .get(`${cr}/reviews/${res.body.id as string}`)
        .expect(200);
      expectContract(after, 'getChangeRequestReviewById');
      expect(after.body.comment).toBeUndefined();
      expect(after.body.status).toBe('changes-requested');
      expect((await as(reader).get(cr)).body.comments).toBe(0);
    });

    it('marks reviews outdated after new authoring and after an update from main, and filters on it', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'First');
      const before = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      await insertPage(cr, 'Second');
      const after = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect((await as(reader).get(`${cr}/reviews/${before.id as string}`)).body.outdated).toBe(true);
      const outdated = await as(reader).get(`${cr}/reviews?outdated=true`).expect(200);
      expectContract(outdated, 'getReviewsByChangeRequestId');
      expect(outdated.body.items.map((r: { id: string }) => r.id)).toEqual([before.id]);
      expect((await as(reader).get(`${cr}/reviews?outdated=false`)).body.items.map((r: { id: string }) => r.id)).toEqual([after.id]);

      // Main moves on: updating from main gives the change request a new head, so the last review is outdated too.
      const other = await openChangeRequest();
      await insertPage(other, 'On main');
      await as(org.admin).post(`${other}/merge`).expect(200);
      await as(author).post(`${cr}/update`).expect(200);
      expect((await as(reader).get(`${cr}/reviews/${after.id as string}`)).body.outdated).toBe(true);
      expect((await as(reader).get(`${cr}/reviews?outdated=false`)).body.items).toEqual([]);
    });

    it('a newer review of the same reviewer supersedes the older one; lists paginate', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Twice');
      const first = (await as(reviewer).post(`${cr}/reviews`, { status: 'changes-requested' }).expect(201)).body;
      const last = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect((await as(reader).get(`${cr}/reviews/${first.id as string}`)).body.outdated).toBe(true);
      expect(last.outdated).toBe(false);
      const page1 = await as(reader).get(`${cr}/reviews?limit=1`).expect(200);
      expect(page1.body.items.map((r: { id: string }) => r.id)).toEqual([last.id]);
      expect(page1.body.count).toBe(2);
      const page2 = await as(reader)
        .get(`${cr}/reviews?limit=1&page=${encodeURIComponent(page1.body.next.page as string)}`)
        .expect(200);
      expect(page2.body.items.map((r: { id: string }) => r.id)).toEqual([first.id]);
      expect(page2.body.next).toBeUndefined();
    });

    it('refuses a review of a merged change request (409)', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Merged');
      await as(org.admin).post(`${cr}/merge`).expect(200);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }), 409);
    });
  });

  describe('requested reviewers', () => {
    itChecksAccess(() => t, {
      given: async (o) => {
        const s = await createSpace(t, o);
        const res = await as(o.admin).post(crs(s.id)).expect(201);
        return `${crs(s.id)}/${res.body.id as string}`;
      },
      request: (o, cr) => t.http.post(`${cr}/requested-reviewers`).send({ users: [o.admin.user.id] }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'comment', status: 403, title: 'refuses a commenter (requests need edit) with 403' },
    });

    it('requests, lists, re-requests, and a reviewer who reviews leaves the list', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Asked');
      const res = await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id, second.user.id, reviewer.user.id], subject: 'Please review' })
        .expect(200);
      expectContract(res, 'requestReviewersForChangeRequest');
      expect(res.body.users).toHaveLength(2);
      expect(res.body.users[0]).toMatchObject({ object: 'change-request-requested-reviewer', kind: 'user', requestedBy: { id: author.user.id } });
      expect((await as(reader).get(cr)).body.subject).toBe('Please review');
      const list = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expectContract(list, 'getRequestedReviewersByChangeRequestId');
      expect(list.body.items.map((r: { user: { id: string } }) => r.user.id).sort()).toEqual([reviewer.user.id, second.user.id].sort());

      const review = await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect(review.body.requestedBy).toMatchObject({ id: author.user.id });
      const left = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expect(left.body.items.map((r: { user: { id: string } }) => r.user.id)).toEqual([second.user.id]);

      // Asked again: the earlier review is superseded by the new request.
      await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id] })
        .expect(200);
      expect((await as(reader).get(`${cr}/reviews/${review.body.id as string}`)).body.outdated).toBe(true);

      const removed = await as(author).del(`${cr}/requested-reviewers/${second.user.id}`);
      expect(removed.status).toBe(205);
      const again = await as(author).del(`${cr}/requested-reviewers/${second.user.id}`);
      expect(again.status).toBe(204);
    });

    it('refuses an empty list, the author, users who cannot view the space, a description; writes nothing', async () => {
      const cr = await openChangeRequest();
      const outsider = (await createOrganization(t)).admin;
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [] }), 400, /users/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, {}), 400, /users/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [] }), 400, /users: at least one user \(or team\)/);
      expectErrorEnvelope(
        await as(author).post(`${cr}/requested-reviewers`, { users: [], teams: ['no-team'] }),
        400,
        /team no-team \(not a team of the organization\)/,
      );
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [author.user.id] }), 400, /author/);
      expectErrorEnvelope(
        await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id, outsider.user.id] }),
        400,
        new RegExp(outsider.user.id),
      );
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: ['nobody'] }), 400, /nobody/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], subject: 'x'.repeat(101) }), 400, /subject/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], description: { nodes: [] } }), 400, /description/);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items).toEqual([]);
    });

    it('teams (Quire extension `teams`): listed as kind team until any member reviews; removable by the team id', async () => {
      const team = await createTeam(t, org, { members: [second] });
      const other = await createTeam(t, org, { members: [reader] });
      const cr = await openChangeRequest();
      await insertPage(cr, 'Team review');
      const res = await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], teams: [team.id, other.id] })
        .expect(200);
      expectContract(res, 'requestReviewersForChangeRequest');
      expect(res.body.users.map((r: { kind: string }) => r.kind).sort()).toEqual(['team', 'team', 'user']);
      const list = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expectContract(list, 'getRequestedReviewersByChangeRequestId');
      const requested = list.body.items.find((r: { kind: string; team?: { id: string } }) => r.kind === 'team' && r.team?.id === team.id);
      expect(requested).toMatchObject({
        object: 'change-request-requested-reviewer',
        kind: 'team',
        team: { object: 'team', id: team.id, title: team.title, members: 1 },
        requestedBy: { id: author.user.id },
      });
      // A member of the team reviews: the team's request is answered (the review names who asked), the user's and the other team's stay.
      const review = await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect(review.body.requestedBy).toMatchObject({ id: author.user.id });
      const after = (await as(reader).get(`${cr}/requested-reviewers`)).body.items.map(
        (r: { kind: string; user?: { id: string }; team?: { id: string } }) => r.user?.id ?? r.team?.id,
      );
      expect(after.sort()).toEqual([reviewer.user.id, other.id].sort());
      // DELETE …/requested-reviewers/{id} takes a team id too.
      await as(author).del(`${cr}/requested-reviewers/${other.id}`).expect(205);
      await as(author).del(`${cr}/requested-reviewers/${other.id}`).expect(204);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items.map((r: { kind: string }) => r.kind)).toEqual(['user']);
    });
    it("a team requested after a member's review outdates it, as a request of the member in person does", async () => {
      const team = await createTeam(t, org, { members: [second] });
      const cr = await openChangeRequest();
      await insertPage(cr, 'Team again');
      const earlier = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      const bystander = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect(earlier.outdated).toBe(false);
      await as(author)
        .post(`${cr}/requested-reviewers`, { users: [], teams: [team.id] })
        .expect(200);
      const read = async (id: string) => (await as(reader).get(`${cr}/reviews/${id}`).expect(200)).body.outdated as boolean;
      expect(await read(earlier.id as string)).toBe(true);
      // Only the team's members: another reviewer's review stands.
      expect(await read(bystander.id as string)).toBe(false);
      const current = await as(reader).get(`${cr}/reviews?outdated=false`).expect(200);
      expect(current.body.items.map((r: { id: string }) => r.id)).toEqual([bystander.id]);
      // The member answers the team: the new review is current, the earlier one superseded by it.
      const answer = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect(answer.outdated).toBe(false);
      expect(await read(earlier.id as string)).toBe(true);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items).toEqual([]);
    });
  });

  describe('contributors', () => {
    it('lists the creator and every author with their number of edits, latest first', async () => {
      expectErrorEnvelope(await t.http.get(`${crs()}/1/contributors`), 401);
      const cr = await openChangeRequest();
      await insertPage(cr, 'One');
      await insertPage(cr, 'Two', reviewer);
      await insertPage(cr, 'Three', reviewer);
      const res = await as(reader).get(`${cr}/contributors`).expect(200);
      expectContract(res, 'getContributorsByChangeRequestId');
      expect(res.body.items.map((c: { user: { id: string }; count: number }) => [c.user.id, c.count])).toEqual([
        [reviewer.user.id, 2],
        [author.user.id, 2],
      ]);
      expect(res.body.items[0].actionType).toBe('edit');
      expectErrorEnvelope(await as((await createOrganization(t)).admin).get(`${cr}/contributors`), 404);
    });
  });
});

type Change = {
  type: string;
  page?: { id: string; title: string; path?: string; type: string };
  file?: { name: string };
  parent?: object;
  attributes?: Record<string, unknown>;
};

const VARIANTS: Record<string, string> = {
  page_created: 'RevisionSemanticChangePageCreated',
  page_deleted: 'RevisionSemanticChangePageDeleted',
  page_moved: 'RevisionSemanticChangePageMoved',
  file_created: 'RevisionSemanticChangeFileCreated',
  file_edited: 'RevisionSemanticChangeFileEdited',
  file_deleted: 'RevisionSemanticChangeFileDeleted',
};
const EDIT_ATTRIBUTES: Record<string, string> = {
  document: 'RevisionPageDocumentChangeAttributes',
  group: 'RevisionPageGroupChangeAttributes',
  link: 'RevisionPageLinkChangeAttributes',
};

/**
 * The public `RevisionSemanticChanges`, each change checked against its own variant. The whole-body
 * check cannot pass for an edit that touches only attributes the variants share (a title: the
 * document, group and link attribute schemas all accept `{ title }`, and `oneOf` wants exactly one),
 * so an edit's attributes are checked against the variant of its page's type.
 */
function expectChanges(res: { body: { changes: Change[] } }, operationId: string): void {
  const body = res.body;
  const unambiguous = body.changes.every((change) => change.type !== 'page_edited');
  if (unambiguous) expectContract(res as never, operationId);
  for (const change of body.changes) {
    if (change.type === 'page_edited') {
      expect(Object.keys(change).sort()).toEqual(['attributes', 'page', 'type']);
      expectPublicSchema(change.page, 'ChangedRevisionPage');
      expectPublicSchema(change.attributes, EDIT_ATTRIBUTES[change.page?.type ?? 'document']);
    } else expectPublicSchema(change, VARIANTS[change.type]);
  }
}

/**
 * Semantic changes of change requests and revisions, over layers (the default bound: every revision
 * here is a layer over the space's first full revision) and over full revisions (a bound of one row:
 * every revision is written full, so the two are compared whole).
 */
describe.each([
  ['layers', {}],
  ['full revisions', { REVISION_LAYER_MIN_ROWS: '1' }],
])('semantic changes (%s)', (_name, env) => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp(env);
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const post = (path: string, body: object = {}) =>
    t.http
      .post(path)
      .set(...org.admin.auth)
      .send(body);
  const newChangeRequest = async (spaceId: string) =>
    `/v1/spaces/${spaceId}/change-requests/${(await post(`/v1/spaces/${spaceId}/change-requests`).expect(201)).body.id as string}`;
  const changes = (cr: string, list: object[]) => post(`${cr}/content`, { changes: list }).expect(200);

  /** A space whose main has Guide (with Install below it), Reference, Old (with Older below it) (link pages have no authoring operation: the unit test covers their attributes). */
  async function spaceWithPages() {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Guide', document: { markdown: 'guide' } },
      { operation: 'insert_page', title: 'Reference', document: { markdown: 'reference' } },
      { operation: 'insert_page', title: 'Old', document: { markdown: 'old' } },
    ]);
    await post(`${cr}/merge`).expect(200);
    const top = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[];
    const id = (title: string) => top.find((page) => page.title === title)?.id as string;
    const cr2 = await newChangeRequest(space.id);
    await changes(cr2, [
      { operation: 'insert_page', title: 'Install', into: id('Guide'), document: { markdown: 'install' } },
      { operation: 'insert_page', title: 'Older', into: id('Old'), document: { markdown: 'older' } },
    ]);
    await post(`${cr2}/merge`).expect(200);
    const all = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as {
      id: string;
      title: string;
      pages: { id: string; title: string }[];
    }[];
    const below = (parent: string) => all.find((page) => page.title === parent)?.pages[0].id as string;
    return { id: space.id, guide: id('Guide'), reference: id('Reference'), old: id('Old'), install: below('Guide'), older: below('Old') };
  }

  it('requires authentication, and answers 404 outside the organization or for an unknown change request or revision', async () => {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`), 401);
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/revisions/${space.revisionId}/changes`), 401);
    const outsider = await createUser(t);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`).set(...outsider.auth), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/change-requests/999999/changes`), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/nope/changes`), 404);
    const empty = await get(`${cr}/changes`).expect(200);
    expectContract(empty, 'getChangeRequestChanges');
    expect(empty.body).toEqual({ changes: [] });
  });

  it('reports pages created, edited, moved with their subtree, deleted with theirs, and files created', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.reference, title: 'API reference', emoji: '1f4d6', document: { markdown: 'new body' } },
      { operation: 'update_page', page: space.guide, into: space.reference },
      { operation: 'delete_page', page: space.old },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const res = await get(`${cr}/changes?limit=100`).expect(200);
    expectChanges(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    const of = (type: string, pageId?: string) => list.filter((c) => c.type === type && (pageId === undefined || c.page?.id === pageId));

    expect(of('page_created')).toEqual([{ type: 'page_created', page: { id: expect.any(String), type: 'document', title: 'Fresh', path: 'fresh' } }]);
    // The moved page only: Install, below it, keeps its parent.
    expect(of('page_moved')).toEqual([
      {
        type: 'page_moved',
        page: { id: space.guide, type: 'document', title: 'Guide', path: 'reference/guide' },
        parent: { after: { id: space.reference, type: 'document', title: 'API reference', path: 'reference' } },
      },
    ]);
    expect(of('page_moved', space.install)).toEqual([]);
    expect(of('page_edited', space.install)).toEqual([]);
    const edited = of('page_edited', space.reference)[0];
    expect(edited.attributes).toMatchObject({ title: { before: 'Reference', after: 'API reference' }, emoji: { after: '1f4d6' }, document: {} });
    expect(Object.keys(edited.attributes ?? {}).sort()).toEqual(['document', 'emoji', 'title']);
    // A deleted page takes its sub-pages with it: both are reported.
    expect(
      of('page_deleted')
        .map((c) => c.page?.id)
        .sort(),
    ).toEqual([space.old, space.older].sort());
    const files = of('file_created');
    expect(files).toHaveLength(1);
    expect(files[0].file).toMatchObject({ name: 'logo.png', contentType: 'image/png', downloadURL: expect.stringContaining('/download') });

    // The default limit is 10; `more` counts what was left out.
    const limited = await get(`${cr}/changes?limit=2`).expect(200);
    expect(limited.body.changes).toHaveLength(2);
    expect(limited.body.more).toBe(list.length - 2);
    expectErrorEnvelope(await get(`${cr}/changes?limit=0`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=1001`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=ten`), 400, /limit/);
  });

  it('a moved subtree under a new parent, and a page moved to the top level', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'update_page', page: space.old, into: space.guide },
      { operation: 'update_page', page: space.install, into: null },
    ]);
    const res = await get(`${cr}/changes`).expect(200);
    expectContract(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    expect(list.map((c) => [c.type, c.page?.id]).sort()).toEqual(
      [
        ['page_moved', space.install],
        ['page_moved', space.old],
      ].sort(),
    );
    const install = list.find((c) => c.page?.id === space.install);
    expect(install?.parent).toEqual({ before: { id: space.guide, type: 'document', title: 'Guide', path: 'guide' } });
    const old = list.find((c) => c.page?.id === space.old);
    expect(old?.page?.path).toBe('guide/old');
  });

  it('a revision against its parent; a merge revision names its change request', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [{ operation: 'update_page', page: space.guide, title: 'Handbook' }]);
    const head = (await get(cr).expect(200)).body;
    const own = await get(`/v1/spaces/${space.id}/revisions/${head.revision as string}/changes?metadata=false`).expect(200);
    expectChanges(own, 'getRevisionSemanticChanges');
    expect(own.body.changes).toEqual([
      {
        type: 'page_edited',
        page: { id: space.guide, type: 'document', title: 'Handbook', path: 'guide' },
        attributes: { title: { before: 'Guide', after: 'Handbook' } },
      },
    ]);
    expect(own.body.mergedFrom).toBeUndefined();
    const merged = await post(`${cr}/merge`).expect(200);
    const res = await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes`).expect(200);
    expectChanges(res, 'getRevisionSemanticChanges');
    expectPublicSchema(res.body.mergedFrom, 'ChangeRequest');
    expect(res.body.mergedFrom).toMatchObject({ object: 'change-request', id: head.id, status: 'merged' });
    expect(res.body.changes.map((c: Change) => [c.type, c.page?.title])).toEqual([['page_edited', 'Handbook']]);
    // The space's first revision has no parent: everything in it is new (an empty space: nothing).
    const fresh = await createSpace(t, org);
    expect((await get(`/v1/spaces/${fresh.id}/revisions/${fresh.revisionId}/changes`).expect(200)).body).toEqual({ changes: [] });
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes?limit=-1`), 400, /limit/);
  });
  it('reads only the keys its deltas changed, across an update from main: the same changes as comparing rows', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.guide, title: 'Handbook' },
      { operation: 'delete_page', page: space.old },
    ]);
    // Main moves on: a page only main's layer has, and an edit.
    const other = await newChangeRequest(space.id);
    await changes(other, [
      { operation: 'insert_page', title: 'Mainline', document: { markdown: 'mainline' } },
      { operation: 'update_page', page: space.reference, title: 'API' },
    ]);
    await post(`${other}/merge`).expect(200);
    const mainline = ((await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[]).find(
      (page) => page.title === 'Mainline',
    )?.id as string;
    await post(`${cr}/update`).expect(200);
    // After the update: delete main's new page, take the retitle back (its key is in a delta, its row is main's again), add a file.
    await changes(cr, [
      { operation: 'delete_page', page: mainline },
      { operation: 'revert_page', page: space.guide },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const read = async () => {
      const res = await get(`${cr}/changes?limit=100`).expect(200);
      return (res.body.changes as Change[]).map((c) => [c.type, c.page?.title ?? c.file?.name]);
    };
    const byDeltas = await read();
    expect([...byDeltas].sort()).toEqual(
      [
        ['file_created', 'logo.png'],
        ['page_created', 'Fresh'],
        ['page_deleted', 'Mainline'],
        ['page_deleted', 'Old'],
        ['page_deleted', 'Older'],
      ].sort(),
    );
    const db = t.dataSource;
    // The reader takes the deltas' keys and nothing else: emptied, it finds no change.
    const saved: { id: string; delta_page_ids: string[]; delta_file_ids: string[] }[] = await db.query(
      `SELECT id, delta_page_ids, delta_file_ids FROM revisions WHERE space_id = $1 AND delta_base_id IS NOT NULL`,
      [space.id],
    );
    await db.query(`UPDATE revisions SET delta_page_ids = '{}', delta_file_ids = '{}' WHERE space_id = $1 AND delta_base_id IS NOT NULL`, [space.id]);
    expect(await read()).toEqual([]);
    // Without them (revisions written before the keys were kept) it compares rows, and finds the same.
    await db.query(`UPDATE revisions SET delta_page_ids = NULL WHERE space_id = $1`, [space.id]);
    expect(await read()).toEqual(byDeltas);
    for (const row of saved)
      await db.query(`UPDATE revisions SET delta_page_ids = $2, delta_file_ids = $3 WHERE id = $1`, [row.id, row.delta_page_ids, row.delta_file_ids]);
    expect(await read()).toEqual(byDeltas);
  });
});

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

describe('merge rules: the public mergeRules of spaces and organizations, the approvals extension, the merge check', () => {
  let t: TestApp;
  let org: OrgFixture;
  let author: Actor;
  let reviewer: Actor;
  let second: Actor;
  let reader: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    author = await addMember(t, org, 'edit');
    reviewer = await addMember(t, org, 'review');
    second = await addMember(t, org, 'review');
    reader = await addMember(t, org, 'read');
  });
  afterAll(() => t.close());

  const crs = (spaceId: string) => `/v1/spaces/${spaceId}/change-requests`;
  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body: object = {}) =>
      t.http
        .post(path)
        .set(...actor.auth)
        .send(body),
    put: (path: string, body: object) =>
      t.http
        .put(path)
        .set(...actor.auth)
        .send(body),
    patch: (path: string, body: object) =>
      t.http
        .patch(path)
        .set(...actor.auth)
        .send(body),
  });
  async function openChangeRequest(spaceId: string, by: Actor = author): Promise<string> {
    const res = await as(by).post(crs(spaceId), { subject: 'to review' }).expect(201);
    return `${crs(spaceId)}/${res.body.id as string}`;
  }
  const insertPage = (cr: string, title: string, by: Actor = author) =>
    as(by).post(`${cr}/content`, { changes: [{ operation: 'insert_page', title, document: { markdown: `# ${title}\n\ntext` } }] });
  const setSpaceRules = (spaceId: string, mergeRules: object) => as(org.admin).patch(`/v1/spaces/${spaceId}`, { mergeRules });

  describe('the public mergeRules', () => {
    it('a space inherits by default; PATCH sets, returns and clears its own, as the public schemas say', async () => {
      const s = await createSpace(t, org);
      const initial = await as(reader).get(`/v1/spaces/${s.id}`).expect(200);
      expectContract(initial, 'getSpaceById');
      expect(initial.body.mergeRules).toEqual({ type: 'inherit' });
      const rules = {
        type: 'rules',
        rules: [
          { rule: 'require_at_least_one_approved_review' },
          { rule: 'require_specific_reviewers', users: [reviewer.user.id] },
          { rule: 'allow_bypass', users: [org.admin.user.id] },
          { rule: 'custom', expression: 'changeRequest.subject != ""', message: 'a subject, please' },
        ],
      };
      const set = await setSpaceRules(s.id, rules).expect(200);
      expectContract(set, 'updateSpaceById');
      expect(set.body.mergeRules).toEqual(rules);
      expect((await as(reader).get(`/v1/spaces/${s.id}`)).body.mergeRules).toEqual(rules);
      // A duplicate keeps the space's rules, as it keeps its other settings.
      const copy = await as(org.admin).post(`/v1/spaces/${s.id}/duplicate`).expect(201);
      expect(copy.body.mergeRules).toEqual(rules);
      expect((await setSpaceRules(s.id, { type: 'none' }).expect(200)).body.mergeRules).toEqual({ type: 'none' });
      expect((await setSpaceRules(s.id, { type: 'inherit' }).expect(200)).body.mergeRules).toEqual({ type: 'inherit' });
      const [row] = await t.dataSource.query(`SELECT merge_rules FROM spaces WHERE id = $1`, [s.id]);
      expect(row.merge_rules).toBeNull();
    });

    it('the organization PATCH sets and returns its rules (`inherit` is not one of them)', async () => {
      const o = await createOrganization(t);
      const initial = await t.http
        .get(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .expect(200);
      expect(initial.body.mergeRules).toEqual({ type: 'none' });
      const rules = { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_up_to_date_change_request' }] };
      const set = await t.http
        .patch(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: rules })
        .expect(200);
      expectContract(set, 'updateOrganizationById');
      expect(set.body.mergeRules).toEqual(rules);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${o.id}`)
          .set(...o.admin.auth)
          .send({ mergeRules: { type: 'inherit' } }),
        400,
        /mergeRules: type: must be one of rules, none/,
      );
      expect((await t.http.get(`/v1/orgs/${o.id}`).set(...o.admin.auth)).body.mergeRules).toEqual(rules);
    });

    it('refuses bad configurations with 400 naming the field, writing nothing', async () => {
      const s = await createSpace(t, org);
      const bad: [object, RegExp][] = [
        [{ type: 'sometimes' }, /mergeRules: type: must be one of inherit, rules, none/],
        [{ type: 'rules' }, /mergeRules: rules: must be an array/],
        [{ type: 'rules', rules: [{ rule: 'allow_bypass' }] }, /mergeRules: rules\[0\].users: must be an array of 1 to 50 user ids/],
        [{ type: 'rules', rules: [{ rule: 'require_at_least_one_review', users: ['x'] }] }, /rules\[0\].users: is not a property of this rule/],
        [{ type: 'rules', rules: [{ rule: 'custom', expression: 'a b' }] }, /rules\[0\].expression: syntax error/],
        [{ type: 'rules', rules: [{ rule: 'require_change_request_description' }] }, /not supported \(change requests have no description\)/],
        [{ type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ['nobody-here'] }] }, /not members of the organization: nobody-here/],
      ];
      for (const [mergeRules, message] of bad) expectErrorEnvelope(await setSpaceRules(s.id, mergeRules), 400, message);
      expectErrorEnvelope(await setSpaceRules(s.id, null as unknown as object), 400, /mergeRules: must not be null/);
      expectErrorEnvelope(await as(reviewer).patch(`/v1/spaces/${s.id}`, { mergeRules: { type: 'none' } }), 403);
      expect((await as(reader).get(`/v1/spaces/${s.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
    });

    it('refuses a merge (409 naming the rule) until the rules pass; the approval must be of the merged revision', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'require_all_reviews_approved' }] }).expect(
        200,
      );
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Gated').expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${cr}/merge`), 409, /require_at_least_one_approved_review: no approval of the current revision/);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(second).post(`${cr}/reviews`, { status: 'changes-requested' }).expect(201);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, new RegExp(`require_all_reviews_approved: changes requested by ${second.user.id}`));
      await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      // New authoring: both approvals were of the old head.
      await insertPage(cr, 'Late').expect(200);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, /require_at_least_one_approved_review/);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect((await as(reviewer).post(`${cr}/merge`).expect(200)).body.result).toBe('merge');
      expect((await as(reader).get(cr)).body.status).toBe('merged');
    });

    it('a custom rule reads the public MergeRulesEvaluationContext: the space, the change request, every review and the merger as the API shows them', async () => {
      const s = await createSpace(t, org);
      const expression = [
        'space.mergeRules.type == "rules"',
        'space.permissions.merge',
        `changeRequest.createdBy.displayName == "${author.user.displayName}"`,
        'changeRequest.urls.location != ""',
        'reviews.length >= 2',
        'actor.urls.location != ""',
      ].join(' && ');
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'custom', expression, message: 'two reviews posted' }] }).expect(200);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Custom').expect(200);
      await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'One thing' } })
        .expect(201);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, /rule custom: two reviews posted/);
      // A second review of the same reviewer: both are posted reviews (the first one outdated), so the rule passes.
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);

      // The context the rule read, against the public schema.
      const reviewerUser = (await t.app.get(UsersService).findByEmail(reviewer.user.email)) as User;
      const context = await t.app.get(SpaceUnitOfWork).run(s.id, reviewerUser, 'merge', async (write) => {
        const row = await t.app.get(ChangeRequestsService).resolve(s.id, cr.split('/').pop() as string, write.em);
        return t.app.get<MergeRulesContextPresenter>(MERGE_RULES_CONTEXT_PRESENTER)(
          await t.app.get(ReviewsService).mergeRulesContext(reviewerUser, write, row),
        ) as MergeRulesEvaluationContextJson;
      });
      expectPublicSchema(context, 'MergeRulesEvaluationContext');
      expect(context.reviews.map((review) => [review.status, review.outdated])).toEqual([
        ['approved', false],
        ['changes-requested', true],
      ]);
      expect(context.reviews[1].comment).toMatchObject({ object: 'comment' });
      expect(context.actor).toMatchObject({ object: 'user', id: reviewer.user.id });

      expect((await as(reviewer).post(`${cr}/merge`).expect(200)).body.result).toBe('merge');
    });

    it('a space that inherits follows its organization; its own rules win over it', async () => {
      const o = await createOrganization(t);
      const editor = await addMember(t, o, 'edit');
      const s = await createSpace(t, o);
      await t.http
        .patch(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_subject' }] } })
        .expect(200);
      const create = await t.http
        .post(crs(s.id))
        .set(...editor.auth)
        .send({})
        .expect(201);
      const cr = `${crs(s.id)}/${create.body.id as string}`;
      expectErrorEnvelope(await t.http.post(`${cr}/merge`).set(...o.admin.auth), 409, /require_change_request_subject: the change request has no subject/);
      await t.http
        .patch(`/v1/spaces/${s.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: { type: 'none' } })
        .expect(200);
      await t.http
        .post(`${cr}/merge`)
        .set(...o.admin.auth)
        .expect(200);
    });

    it('allow_bypass lets the users it names merge anyway, and nobody else (admins included)', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, {
        type: 'rules',
        rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'allow_bypass', users: [reviewer.user.id] }],
      }).expect(200);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Bypass').expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${cr}/merge`), 409, /require_at_least_one_approved_review/);
      await as(reviewer).post(`${cr}/merge`).expect(200);
    });

    it('require_author_to_merge and require_up_to_date_change_request', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_author_to_merge' }, { rule: 'require_up_to_date_change_request' }] }).expect(200);
      // The reviewer authors both (the review role may edit and merge).
      const behind = await openChangeRequest(s.id, reviewer);
      await insertPage(behind, 'Behind', reviewer).expect(200);
      const first = await openChangeRequest(s.id, reviewer);
      await insertPage(first, 'First', reviewer).expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${first}/merge`), 409, /require_author_to_merge/);
      await as(reviewer).post(`${first}/merge`).expect(200);
      // main moved on: `behind` must be updated from main first.
      expectErrorEnvelope(await as(reviewer).post(`${behind}/merge`), 409, /require_up_to_date_change_request/);
      await as(reviewer).post(`${behind}/update`).expect(200);
      await as(reviewer).post(`${behind}/merge`).expect(200);
    });
  });

  describe('approvals (Quire extension, PUT …/merge-rules)', () => {
    itChecksAccess(() => t, {
      given: async (o) => createSpace(t, o),
      request: (_o, s) => t.http.put(`/v1/spaces/${s.id}/merge-rules`).send({ requiredApprovals: 1 }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'review', status: 403, title: 'refuses a reviewer (the rules need admin) with 403' },
    });

    it('reads the default (none), refuses bad settings', async () => {
      const s = await createSpace(t, org);
      const res = await as(reader).get(`/v1/spaces/${s.id}/merge-rules`).expect(200);
      expect(res.body).toEqual({ object: 'space-merge-rules', space: s.id, requiredApprovals: 0, urls: { location: expect.stringMatching(/\/merge-rules$/) } });
      expectErrorEnvelope(await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 21 }), 400, /requiredApprovals/);
      expectErrorEnvelope(await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: -1 }), 400, /requiredApprovals/);
      expectErrorEnvelope(
        await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 1, adminsCanOverride: true }),
        400,
        /adminsCanOverride/,
      );
    });

    it('N approvals of the current revision, from distinct reviewers', async () => {
      const s = await createSpace(t, org);
      expect((await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 2 }).expect(200)).body.requiredApprovals).toBe(2);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Two').expect(200);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expectErrorEnvelope(
        await as(reviewer).post(`${cr}/merge`),
        409,
        /requiredApprovals \(Quire extension\): 2 approval\(s\) of the current revision needed, 1 given/,
      );
      await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(reviewer).post(`${cr}/merge`).expect(200);
    });
  });

  describe('under concurrency', () => {
    it('a request for changes racing a merge: either it lands first (409) or the merge does (the review finds it closed)', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'require_all_reviews_approved' }] }).expect(
        200,
      );
      for (let round = 0; round < 4; round++) {
        const cr = await openChangeRequest(s.id);
        await insertPage(cr, `Race ${round}`).expect(200);
        await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
        const [merge, review] = await Promise.all([as(reviewer).post(`${cr}/merge`), as(second).post(`${cr}/reviews`, { status: 'changes-requested' })]);
        const status = (await as(reader).get(cr)).body.status;
        if (merge.status === 200) {
          expect(status).toBe('merged');
          expect(review.status).toBe(409);
        } else {
          expect(merge.status).toBe(409);
          expect(review.status).toBe(201);
          expect(status).toBe('open');
        }
      }
    });

    it("an organization's rules changing during a merge: the merge waits for the change and checks the new rules", async () => {
      const o = await createOrganization(t);
      const s = await createSpace(t, o);
      const cr = `${crs(s.id)}/${
        (
          await t.http
            .post(crs(s.id))
            .set(...o.admin.auth)
            .send({})
            .expect(201)
        ).body.id as string
      }`;
      await t.http
        .post(`${cr}/content`)
        .set(...o.admin.auth)
        .send({ changes: [{ operation: 'insert_page', title: 'Waits', document: { markdown: 'text' } }] })
        .expect(200);
      // The organization PATCH's UPDATE, held open: the space inherits `none` until it commits.
      const patch = t.dataSource.createQueryRunner();
      await patch.connect();
      try {
        await patch.startTransaction();
        await patch.query(`UPDATE organizations SET merge_rules = $2 WHERE id = $1`, [
          o.id,
          JSON.stringify({ type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] }),
        ]);
        let answered = false;
        const merge = t.http
          .post(`${cr}/merge`)
          .set(...o.admin.auth)
          .send({})
          .then((res) => {
            answered = true;
            return res;
          });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(answered).toBe(false);
        await patch.commitTransaction();
        expectErrorEnvelope(await merge, 409, /require_at_least_one_approved_review/);
      } finally {
        if (patch.isTransactionActive) await patch.rollbackTransaction();
        await patch.release();
      }
      expect((await t.http.get(cr).set(...o.admin.auth)).body.status).toBe('open');
    });

    it('new authoring racing a merge: no merge lands without an approval of the revision it merged', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] }).expect(200);
      const outcomes = { merged: 0, refused: 0 };
      for (let round = 0; round < 12; round++) {
        const cr = await openChangeRequest(s.id);
        await insertPage(cr, `Approved ${round}`).expect(200);
        await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
        // The author pushes a change (outdating the approval) while the reviewer merges.
        const [authoring, merge] = await Promise.all([insertPage(cr, `Unreviewed ${round}`), as(reviewer).post(`${cr}/merge`)]);
        const [row] = await t.dataSource.query(`SELECT id, status, revision, revision_merged FROM change_requests WHERE id = $1`, [cr.split('/').pop()]);
        if (merge.status === 200) {
          outcomes.merged++;
          // The merge ran first: the authoring found the change request closed, and the merged head is the approved one.
          expect(authoring.status).toBe(409);
          expect(row.status).toBe('merged');
          const [parents] = await t.dataSource.query(`SELECT parents FROM revisions WHERE id = $1`, [row.revision_merged]);
          expect(parents.parents[1]).toBe(row.revision);
          const approvals = await t.dataSource.query(
            `SELECT 1 FROM change_request_reviews WHERE change_request_id = $1 AND status = 'approved' AND revision_id = $2`,
            [row.id, row.revision],
          );
          expect(approvals).toHaveLength(1);
        } else {
          outcomes.refused++;
          // The authoring ran first: the approval was of the old head, so the merge was refused and nothing merged.
          expectErrorEnvelope(merge, 409, /require_at_least_one_approved_review/);
          expect(authoring.status).toBe(200);
          expect(row.status).toBe('open');
          expect(row.revision_merged).toBeNull();
        }
      }
      expect(outcomes.merged + outcomes.refused).toBe(12);
    });
  });
});

/**
 * The merge compares only the layers' own pages when base, head and main are layers over one full
 * revision (change-requests-content covers that path). With a layer bound of one row every revision
 * is written full, so these merges take the other path: the three revisions compared whole in SQL.
 */
describe('change request merges over full revisions (the whole comparison)', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ REVISION_LAYER_MIN_ROWS: '1' });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body?: object) => {
    const req = t.http.post(path).set(...org.admin.auth);
    return body === undefined ? req : req.send(body);
  };
  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const newChangeRequest = async (spaceId: string) => {
    const res = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return `/v1/spaces/${spaceId}/change-requests/${res.body.id as string}`;
  };
  const changes = (url: string, list: object[]) => post(`${url}/content`, { changes: list });
  const layered = async (revisionId: string) => (await t.dataSource.query(`SELECT base_id FROM revisions WHERE id = $1`, [revisionId]))[0].base_id !== null;
  const edit = (at: number, text: string, body = lines(20)) => body.map((line, i) => (i === at ? text : line)).join('\n');

  async function spaceWithPages(): Promise<{ id: string; shared: string; other: string }> {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Shared', document: { markdown: lines(20).join('\n') } },
      { operation: 'insert_page', title: 'Other', document: { markdown: 'other' } },
    ]).expect(200);
    await post(`${cr}/merge`).expect(200);
    const tree = await get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    const id = (title: string) => tree.body.pages.find((page: { title: string }) => page.title === title).id as string;
    return { id: space.id, shared: id('Shared'), other: id('Other') };
  }

  it('keeps non-conflicting edits of two change requests, and main’s own edit, through update and merge', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [
      { operation: 'update_page', page: space.shared, document: { markdown: edit(1, 'line 2 by A') } },
      { operation: 'update_page', page: space.other, title: 'Other by A' },
    ]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(17, 'line 18 by B') } }]).expect(200);

    const merged = await post(`${a}/merge`).expect(200);
    // Main is now a full revision other than B's base: B's update compares the three whole.
    expect(await layered(merged.body.revision)).toBe(false);
    await post(`${b}/update`).expect(200);
    await post(`${b}/merge`).expect(200);

    const shared = await get(`/v1/spaces/${space.id}/content/page/${space.shared}`).expect(200);
    expect(shared.body.markdown.split('\n')).toEqual(edit(17, 'line 18 by B', edit(1, 'line 2 by A').split('\n')).split('\n'));
    const other = await get(`/v1/spaces/${space.id}/content/page/${space.other}`).expect(200);
    expect(other.body.title).toBe('Other by A');
  });

  it('answers 409 naming the page for overlapping edits, and leaves the space revision unchanged', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'A wrote this') } }]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'B wrote that') } }]).expect(200);
    await post(`${a}/merge`).expect(200);
    const before = (await get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    const conflict = await post(`${b}/merge`);
    expectErrorEnvelope(conflict, 409);
    expect(conflict.body.error.message).toContain('Shared');
    expect((await get(`/v1/spaces/${space.id}`).expect(200)).body.revision).toBe(before);
  });
});
