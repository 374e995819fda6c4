import { SearchIndexWritesRepository } from '../../src/modules/space-writes/search-index-writes.repository';
import { inflateSync } from 'node:zlib';
import { addMember, Actor, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
