import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LayoutPage, LayoutSpace } from '../../src/modules/content/git-sync/git-layout';

const CORPUS = join(__dirname, '../fixtures/documents');

/** Every body of the document corpus (one per block type and combination), by fixture name. */
export function corpusBodies(): [string, string][] {
  return readdirSync(CORPUS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => [name.slice(0, -3), readFileSync(join(CORPUS, name), 'utf8')]);
}

export function layoutPage(page: Pick<LayoutPage, 'pageId' | 'parentId' | 'position' | 'title'> & Partial<LayoutPage>): LayoutPage {
  return {
    kind: 'document',
    emoji: null,
    icon: null,
    slug: page.kind === 'link' ? null : page.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    description: null,
    layout: null,
    cover: null,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    linkTarget: null,
    markdown: '',
    ...page,
  };
}

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * A space with every block type (the corpus files as page bodies, pointing at the space's own
 * pages `page-1`/`page-2`, files `file-1`…`file-4`/`file-9` and reusable content `rc-intro`), nested
 * pages, a group, links, page settings, files, reusable contents and variables.
 */
export function corpusSpace(): LayoutSpace {
  const pages: LayoutPage[] = [
    layoutPage({
      pageId: 'page-1',
      parentId: null,
      position: 0,
      title: 'Introduction',
      slug: 'introduction',
      markdown: 'Welcome. See [the guide](/pages/page-2#setup) and ![logo](/files/file-1).\n',
      description: 'Where it starts',
      icon: 'rocket',
      cover: { ref: { kind: 'file', file: 'file-2' }, yPos: 12 },
      layout: { width: 'wide', cover: true, coverSize: 'hero', title: true, description: false, tableOfContents: true, outline: false, pagination: true },
    }),
    layoutPage({
      pageId: 'page-2',
      parentId: null,
      position: 1,
      title: 'Guide [draft]',
      slug: 'guide',
      markdown: '## Setup\n\nRead [intro](/pages/page-1).\n',
      emoji: '1f389',
    }),
    layoutPage({ pageId: 'group-1', parentId: null, position: 2, kind: 'group', title: 'Reference', slug: 'reference' }),
    layoutPage({
      pageId: 'link-1',
      parentId: 'group-1',
      position: 0,
      kind: 'link',
      title: 'Website',
      linkTarget: { kind: 'url', url: 'https://example.com/a b' },
    }),
    layoutPage({ pageId: 'link-2', parentId: 'group-1', position: 1, kind: 'link', title: 'Back to the guide', linkTarget: { kind: 'page', page: 'page-2' } }),
  ];
  corpusBodies().forEach(([name, markdown], index) => {
    pages.push(layoutPage({ pageId: `corpus-${name}`, parentId: 'group-1', position: index + 2, title: `Block ${name}`, slug: name, markdown }));
  });
  pages.push(
    layoutPage({
      pageId: 'child-1',
      parentId: 'corpus-tabs',
      position: 0,
      title: 'Nested',
      slug: 'nested',
      markdown: 'Up to [tabs](/pages/corpus-tabs).\n',
      hidden: true,
      noIndex: true,
    }),
    layoutPage({
      pageId: 'child-2',
      parentId: 'child-1',
      position: 0,
      title: 'Deeper',
      slug: 'deeper',
      markdown: '',
      noRobotsIndex: true,
      variables: { tier: 'gold', n: 3 },
    }),
  );
  const file = (fileId: string, name: string, data: Buffer = Buffer.from(`bytes of ${fileId}`), contentType = 'image/png') => ({
    fileId,
    name,
    contentType,
    data,
  });
  return {
    pages,
    files: [
      file('file-1', 'logo.png', PNG),
      file('file-2', 'cover image.png', PNG),
      file('file-3', 'logo.png'),
      file('file-4', 'report.pdf', Buffer.from('%PDF-1.4'), 'application/pdf'),
      file('file-9', 'spec.yaml', Buffer.from('openapi: 3.0.0'), 'application/yaml'),
    ],
    reusableContents: [
      { reusableContentId: 'rc-intro', title: 'Intro snippet', markdown: 'Shared text linking [the guide](/pages/page-2).\n' },
      { reusableContentId: 'rc-other', title: 'Intro snippet', markdown: '{% hint style="info" %}\nA hint\n{% endhint %}\n' },
    ],
    variables: { product: 'Quire', version: 2 },
  };
}
