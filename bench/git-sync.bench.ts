/* Git Sync benchmark: a 10,000-page space with every block type (the document corpus as bodies, nested
 * 100 per parent, links between pages) imported from a local git repository in GitBook's layout
 * (the job's work: read the commit, parse, write one revision), then exported back as one commit.
 * Figures in pages/s, beside the website import's (content.bench.ts). `BENCH_ONLY=git-sync npm run bench`,
 * or standalone: `node -r @swc-node/register bench/git-sync.bench.ts`. GIT_SYNC_BENCH_PAGES sets the size. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitTree } from '../src/modules/content/git-sync/git-repository';
import { GitSyncService } from '../src/modules/content/git-sync/git-sync.service';
import { exportLayout } from '../src/modules/content/git-sync/layout-export';
import { SpacesService } from '../src/modules/spaces/spaces.service';
import { corpusBodies, corpusSpace, layoutPage } from '../test/support/git-sync-space';
import { startBenchApp } from './in-process';

const PAGES = Number(process.env.GIT_SYNC_BENCH_PAGES ?? 10_000);

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'quire-git-bench-'));
  const bench = await startBenchApp({ GIT_SYNC_ROOT: root });
  const { app, user, membership } = bench;
  try {
    const bodies = corpusBodies();
    const pages = Array.from({ length: PAGES }, (_, index) =>
      layoutPage({
        pageId: `p${index}`,
        parentId: index % 100 === 0 ? null : `p${index - (index % 100)}`,
        position: index % 100,
        title: `Page ${index}`,
        slug: `page-${index}`,
        markdown: `${bodies[index % bodies.length][1]}\nNext: [page](/pages/p${(index + 1) % PAGES}).\n`,
      }),
    );
    const { files, reusableContents } = corpusSpace();
    const layout = await exportLayout({ pages, files, reusableContents, variables: {} });
    const bytes = [...layout.values()].reduce((sum, data) => sum + data.length, 0);
    const seed = join(root, 'seed');
    await commitTree(seed, 'refs/heads/main', layout, 'seed', { name: 'Bench', email: 'bench@example.com' });

    const space = (await app.get(SpacesService).create(user, membership, { title: 'Git Sync' })).space;
    const sync = app.get(GitSyncService);
    const payload = { spaceId: space.id, userId: user.id, ref: 'refs/heads/main', url: seed };
    let started = performance.now();
    await sync.import(user, { ...payload, direction: 'import', path: seed });
    const importSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await sync.export(user, { ...payload, direction: 'export', path: join(root, 'exported'), commitMessage: 'bench' });
    const exportSeconds = (performance.now() - started) / 1000;
    console.log(
      [
        `Git Sync, ${PAGES}-page space with every block type (${(bytes / 1024 / 1024).toFixed(1)} MB of files in the layout):`,
        `| import from a local git repository (read, parse, one revision) | ${importSeconds.toFixed(1)} s = **${Math.round(PAGES / importSeconds)} pages/s** |`,
        `| export to a local git repository (read, write, one commit) | ${exportSeconds.toFixed(1)} s = **${Math.round(PAGES / exportSeconds)} pages/s** |`,
      ].join('\n'),
    );
  } finally {
    await bench.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
