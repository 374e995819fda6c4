import { markdownToDocument } from '../../../src/modules/content/document';
import { LayoutSpace } from '../../../src/modules/content/git-sync/git-layout';
import { exportLayout } from '../../../src/modules/content/git-sync/layout-export';
import { importLayout, LayoutError } from '../../../src/modules/content/git-sync/layout-import';
import { corpusSpace } from '../../support/git-sync-space';
import { withoutKeys } from '../document/normalize';

let counter = 0;
const newId = () => `new-${++counter}`;

/** A space as comparable data: pages by id with their documents (up to keys), files, reusable contents, variables. */
function comparable(space: LayoutSpace) {
  const sort = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  return {
    pages: sort(space.pages, (page) => page.pageId).map(({ markdown, ...page }) => ({ ...page, document: withoutKeys(markdownToDocument(markdown)) })),
    files: sort(space.files, (file) => file.fileId).map((file) => ({ ...file, data: file.data.toString('base64') })),
    reusableContents: sort(space.reusableContents, (item) => item.reusableContentId).map(({ markdown, ...item }) => ({
      ...item,
      document: withoutKeys(markdownToDocument(markdown)),
    })),
    variables: space.variables,
  };
}

describe('Git Sync layout', () => {
  it('writes GitBook’s layout: SUMMARY.md, README.md, one file per page, assets and includes', async () => {
    const files = await exportLayout(corpusSpace());
    const text = (path: string) => files.get(path)?.toString('utf8');
    expect(text('SUMMARY.md')).toContain(
      '* [Introduction](README.md)\n* [Guide \\[draft\\]](guide.md)\n\n## Reference <a href="#reference" id="reference"></a>',
    );
    expect(text('SUMMARY.md')).toContain('* [Website](<https://example.com/a b>)');
    expect(text('SUMMARY.md')).toContain(
      '* [Block tabs](reference/tabs/README.md)\n  * [Nested](reference/tabs/nested/README.md)\n    * [Deeper](reference/tabs/nested/deeper.md)',
    );
    expect(text('README.md')).toMatch(
      /^---\ndescription: Where it starts\nicon: rocket\ncover: .gitbook\/assets\/cover image.png\ncoverY: 12\nlayout:\n {2}width: wide\n/,
    );
    expect(text('README.md')).toContain('# Introduction\n\nWelcome. See [the guide](guide.md#setup) and ![logo](.gitbook/assets/logo.png).');
    expect(text('reference/images.md')).toContain('<figure><img src="../.gitbook/assets/logo.png" alt="A diagram"></figure>');
    expect(text('reference/include-if-expression.md')).toContain('{% include "../.gitbook/includes/intro-snippet.md" %}');
    expect(text('.gitbook/includes/intro-snippet (1).md')).toContain('---\ntitle: Intro snippet\n---');
    expect([...files.keys()].filter((path) => path.startsWith('.gitbook/assets/')).sort()).toEqual([
      '.gitbook/assets/cover image.png',
      '.gitbook/assets/logo (1).png',
      '.gitbook/assets/logo.png',
      '.gitbook/assets/report.pdf',
      '.gitbook/assets/spec.yaml',
    ]);
    expect(text('.gitbook/vars.yaml')).toBe('product: Quire\nversion: 2\n');
  });

  it('reads back what it wrote: same ids, tree, settings and documents', async () => {
    const space = corpusSpace();
    const imported = await importLayout(await exportLayout(space), space, newId);
    expect(comparable(imported)).toEqual(comparable(space));
  });

  it('gives new ids to what moved, keeps the others, and points links at the new ids', async () => {
    const space = corpusSpace();
    const files = await exportLayout(space);
    files.set('SUMMARY.md', Buffer.from(files.get('SUMMARY.md')!.toString().replace('(guide.md)', '(moved.md)')));
    files.set('moved.md', files.get('guide.md')!);
    files.delete('guide.md');
    files.set('README.md', Buffer.from(files.get('README.md')!.toString().replace('(guide.md#setup)', '(moved.md#setup)')));
    const imported = await importLayout(files, space, newId);
    const moved = imported.pages.find((page) => page.slug === 'moved')!;
    expect(moved.pageId).toMatch(/^new-/);
    const intro = imported.pages.find((page) => page.pageId === 'page-1')!;
    expect(intro.markdown).toContain(`/pages/${moved.pageId}#setup`);
  });

  it('reads a hand-written repository with .gitbook.yaml and a nested root', async () => {
    const files = new Map<string, Buffer>([
      ['.gitbook.yaml', Buffer.from('root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc.md\n')],
      ['docs/toc.md', Buffer.from('# Summary\n\n* [Start](intro.md)\n* [Guide](guide/README.md)\n  * [Step](guide/step.md)\n')],
      ['docs/intro.md', Buffer.from('# Start here\n\nGo to [step](guide/step.md).\n')],
      [
        'docs/guide/README.md',
        Buffer.from('---\ndescription: All of it\n---\n# Guide\n\n<figure><img src="../.gitbook/assets/a.png" alt=""><figcaption></figcaption></figure>\n'),
      ],
      ['docs/guide/step.md', Buffer.from('Plain body, no title.\n')],
      ['docs/.gitbook/assets/a.png', Buffer.from('png')],
    ]);
    const imported = await importLayout(files, { pages: [], files: [], reusableContents: [], variables: {} }, newId);
    expect(imported.pages.map((page) => [page.title, page.slug, page.parentId === null])).toEqual([
      ['Start here', 'start-here', true],
      ['Guide', 'guide', true],
      ['Step', 'step', false],
    ]);
    const step = imported.pages[2];
    expect(imported.pages[0].markdown).toBe(`Go to [step](/pages/${step.pageId}).\n`);
    expect(imported.pages[1].description).toBe('All of it');
    expect(imported.pages[1].markdown).toContain(`src="/files/${imported.files[0].fileId}"`);
    expect(imported.files[0]).toMatchObject({ name: 'a.png', contentType: 'image/png' });
  });

  it('writes and reads a body without refs as it is', async () => {
    const space = corpusSpace();
    const hint = space.pages.find((page) => page.pageId === 'corpus-hint')!;
    const files = await exportLayout(space);
    expect(files.get('reference/hint.md')!.toString()).toBe(`# Block hint\n\n${hint.markdown}`);
    const imported = await importLayout(files, space, newId);
    expect(imported.pages.find((page) => page.pageId === 'corpus-hint')!.markdown).toBe(hint.markdown);
  });

  it('refuses a repository without a summary, or with broken front matter', async () => {
    const empty = { pages: [], files: [], reusableContents: [], variables: {} };
    await expect(importLayout(new Map([['README.md', Buffer.from('# Hi')]]), empty, newId)).rejects.toThrow(LayoutError);
    const broken = new Map([
      ['SUMMARY.md', Buffer.from('* [A](a.md)\n')],
      ['a.md', Buffer.from('---\n: [\n---\n# A\n')],
    ]);
    await expect(importLayout(broken, empty, newId)).rejects.toThrow('a.md:');
  });
});
