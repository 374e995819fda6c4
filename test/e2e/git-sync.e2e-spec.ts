import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { markdownToDocument } from '../../src/modules/content/document';
import { LayoutSpace } from '../../src/modules/content/git-sync/git-layout';
import { commitTree } from '../../src/modules/content/git-sync/git-repository';
import { GitSyncService } from '../../src/modules/content/git-sync/git-sync.service';
import { exportLayout } from '../../src/modules/content/git-sync/layout-export';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { corpusBodies, corpusSpace, layoutPage } from '../support/git-sync-space';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const AUTHOR = { name: 'Test', email: 'test@example.com' };
const pick = <T extends object, K extends keyof T>(value: T, keys: K[]) => Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;

describe('Git Sync: POST /v1/spaces/{spaceId}/git/export and /git/import', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'quire-git-'));
    t = await createTestApp({ JOBS_ENABLED: 'true', GIT_SYNC_ROOT: root });
  });
  afterAll(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  const activeRevision = async (spaceId: string) =>
    (await t.app.get(DataSource).query(`SELECT revision_id FROM spaces WHERE id = $1`, [spaceId]))[0].revision_id as string;
  const until = async <T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const headOf = (repo: string, ref = 'refs/heads/main') => {
    try {
      return execFileSync('git', ['rev-parse', '--verify', '--quiet', ref], { cwd: repo }).toString().trim();
    } catch {
      return null;
    }
  };
  /** A repository under the root holding `space` in the layout, as the seed of a space. */
  const seedRepository = async (name: string, space: LayoutSpace) => {
    const path = join(root, name);
    await commitTree(path, 'refs/heads/main', await exportLayout(space), 'seed', AUTHOR);
    return path;
  };
  const post = (org: OrgFixture, spaceId: string, direction: 'export' | 'import', body: Record<string, unknown>) =>
    t.http
      .post(`/v1/spaces/${spaceId}/git/${direction}`)
      .set(...org.admin.auth)
      .send(body);
  /** Imports `path` into the space through the route and waits for the new revision. */
  const importInto = async (org: OrgFixture, spaceId: string, path: string) => {
    const before = await activeRevision(spaceId);
    await post(org, spaceId, 'import', { url: `file://${path}`, ref: 'refs/heads/main' }).expect(204);
    return until('the import', async () => ((await activeRevision(spaceId)) !== before ? activeRevision(spaceId) : null));
  };
  const exportTo = async (org: OrgFixture, spaceId: string, path: string, commitMessage = 'Export') => {
    const before = headOf(path);
    await post(org, spaceId, 'export', { url: path, ref: 'refs/heads/main', commitMessage }).expect(204);
    return until('the export', async () => (headOf(path) !== before ? headOf(path) : null));
  };
  /** The space's active content, comparable: ids, tree, settings, documents, file bytes. */
  const contentOf = async (spaceId: string) => {
    const space = await t.app.get(GitSyncService).snapshot(spaceId, await activeRevision(spaceId), t.app.get(DataSource).manager, true);
    const byId = <T>(items: T[], id: (item: T) => string) => [...items].sort((a, b) => (id(a) < id(b) ? -1 : 1));
    return {
      pages: byId(space.pages, (page) => page.pageId).map((page) => ({
        ...pick(page, ['pageId', 'parentId', 'position', 'kind', 'title', 'emoji', 'icon', 'slug', 'description', 'layout', 'cover']),
        ...pick(page, ['hidden', 'noIndex', 'noRobotsIndex', 'variables', 'linkTarget']),
        document: markdownToDocument(page.markdown),
      })),
      files: byId(space.files, (file) => file.fileId).map((file) => ({ ...file, data: file.data.toString('base64') })),
      reusableContents: byId(space.reusableContents, (item) => item.reusableContentId).map(({ markdown, ...item }) => ({
        ...item,
        document: markdownToDocument(markdown),
      })),
      variables: space.variables,
    };
  };

  it('exports every block type, nested pages, groups, links, files and reusable contents, and imports them back unchanged', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const seeded = await importInto(org, space.id, await seedRepository('seed-corpus', corpusSpace()));
    const before = await contentOf(space.id);
    expect(before.pages).toHaveLength(corpusSpace().pages.length);
    expect(before.pages.filter((page) => page.kind === 'group')).toHaveLength(1);
    expect(before.pages.filter((page) => page.kind === 'link')).toHaveLength(2);
    expect(before.reusableContents).toHaveLength(2);
    expect(before.variables).toEqual({ product: 'Quire', version: 2 });

    const repo = join(root, 'exported');
    const commit = await exportTo(org, space.id, repo, 'Docs from Quire');
    const show = (path: string) => execFileSync('git', ['show', `${commit}:${path}`], { cwd: repo }).toString();
    expect(execFileSync('git', ['log', '-1', '--format=%s', commit], { cwd: repo }).toString().trim()).toBe('Docs from Quire');
    expect(show('SUMMARY.md')).toContain('## Reference <a href="#reference" id="reference"></a>');
    expect(show('README.md')).toContain('# Introduction');
    const tree = execFileSync('git', ['ls-tree', '-r', '--name-only', commit], { cwd: repo }).toString();
    expect(tree).toContain('.gitbook/assets/logo.png');
    expect(tree).toContain('.gitbook/includes/intro-snippet.md');

    const imported = await importInto(org, space.id, repo);
    expect(imported).not.toBe(seeded);
    expect(await contentOf(space.id)).toEqual(before);
    const revision = await t.http
      .get(`/v1/spaces/${space.id}/content`)
      .set(...org.admin.auth)
      .expect(200);
    expect(revision.body.git).toMatchObject({ oid: commit, message: 'Docs from Quire', createdByGitBook: false, ref: 'refs/heads/main' });
  });

  it('round-trips a 200-page space with every block type', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const bodies = corpusBodies();
    // Big enough that the repository's files stream through `cat-file --batch` in many pipe buffers and the
    // tree is wide and deep; the cost of size itself is bench/git-sync.bench.ts's (10,000 pages).
    const pages = Array.from({ length: 200 }, (_, index) =>
      layoutPage({
        pageId: `p${index}`,
        // Ten top-level pages, each with 19 children; links between neighbours.
        parentId: index % 20 === 0 ? null : `p${index - (index % 20)}`,
        position: index % 20,
        title: `Page ${index}`,
        slug: `page-${index}`,
        markdown: `${bodies[index % bodies.length][1]}\nNext: [page](/pages/p${(index + 1) % 200}).\n`,
      }),
    );
    await importInto(
      org,
      space.id,
      await seedRepository('seed-large', { pages, files: corpusSpace().files, reusableContents: corpusSpace().reusableContents, variables: {} }),
    );
    const before = await contentOf(space.id);
    expect(before.pages).toHaveLength(200);
    const repo = join(root, 'large');
    await exportTo(org, space.id, repo);
    await importInto(org, space.id, repo);
    expect(await contentOf(space.id)).toEqual(before);
  }, 120_000);

  it('refuses repositories outside GIT_SYNC_ROOT, symlinks included, bad refs and missing repositories', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    const outside = mkdtempSync(join(tmpdir(), 'quire-outside-'));
    try {
      mkdirSync(join(root, 'links'), { recursive: true });
      symlinkSync(outside, join(root, 'links', 'escape'));
      for (const url of [
        '/etc',
        'relative/path',
        `file://${outside}`,
        join(root, '..', 'elsewhere'),
        join(root, 'links', 'escape', 'repo'),
        root,
        'http://example.com/repo.git',
      ]) {
        expectErrorEnvelope(await post(org, space.id, 'export', { url, ref: 'refs/heads/main', commitMessage: 'm' }), 400, /url/);
      }
      expectErrorEnvelope(await post(org, space.id, 'export', { url: join(root, 'ok'), ref: '--upload-pack=x', commitMessage: 'm' }), 400, /ref/);
      expectErrorEnvelope(await post(org, space.id, 'import', { url: join(root, 'missing'), ref: 'refs/heads/main' }), 400, /repository/);
      const repo = await seedRepository('seed-refs', corpusSpace());
      expectErrorEnvelope(await post(org, space.id, 'import', { url: repo, ref: 'refs/heads/nope' }), 400, /not found/);
      expectErrorEnvelope(await post(org, space.id, 'export', { url: repo, ref: 'refs/heads/main' }), 400, /commitMessage/);
      expectErrorEnvelope(await post(org, space.id, 'import', { ref: 'refs/heads/main' }), 400, /url/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
