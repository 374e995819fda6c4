import { extractPage } from '../../src/modules/content/import/html-extract';
import { htmlToMarkdown } from '../../src/modules/content/import/html-to-markdown';
import { mapPool } from '../../src/modules/content/import/pool';
import { inScope, normalizePageUrl, planTree, scopeOf, segmentsOf, spacePathOf } from '../../src/modules/content/import/site-scope';
import { ancestorTitles } from '../../src/modules/space-writes/search-index-writes.repository';

describe('import scope', () => {
  it.each([
    ['https://docs.test/guide/', { root: '/guide', prefix: '/guide/' }],
    ['https://docs.test/guide', { root: '/guide', prefix: '/guide/' }],
    ['https://docs.test/guide/index.html', { root: '/guide', prefix: '/guide/' }],
    ['https://docs.test/', { root: '', prefix: '/' }],
  ])('%s covers %j', (start, expected) => {
    expect(scopeOf(new URL(start))).toEqual({ origin: 'https://docs.test', ...expected });
  });

  it('normalizes crawl keys: no query, fragment, index file or trailing slash', () => {
    expect(normalizePageUrl('https://docs.test/guide/?q=1#top')).toBe('https://docs.test/guide');
    expect(normalizePageUrl('https://docs.test/guide/index.html')).toBe('https://docs.test/guide');
    expect(normalizePageUrl('https://docs.test/')).toBe('https://docs.test');
    expect(normalizePageUrl('mailto:a@b.test')).toBeNull();
    expect(normalizePageUrl('::')).toBeNull();
  });

  it('keeps to the origin and the start path', () => {
    const scope = scopeOf(new URL('https://docs.test/guide/'));
    expect(inScope('https://docs.test/guide', scope)).toBe(true);
    expect(inScope('https://docs.test/guide/install', scope)).toBe(true);
    expect(inScope('https://docs.test/guidebook', scope)).toBe(false);
    expect(inScope('https://docs.test/other', scope)).toBe(false);
    expect(inScope('http://docs.test/guide/install', scope)).toBe(false);
    expect(inScope('https://docs.test:8443/guide/install', scope)).toBe(false);
  });

  it('gives the segments below the start page, without page extensions, and the space path of a page not imported', () => {
    const scope = scopeOf(new URL('https://docs.test/guide/'));
    expect(segmentsOf('https://docs.test/guide/setup/install.html', scope)).toEqual(['setup', 'install']);
    expect(segmentsOf('https://docs.test/guide/caf%C3%A9', scope)).toEqual(['café']);
    expect(spacePathOf('https://docs.test/guide/Missing_Page.html', scope)).toBe('/missing-page');
  });
});

describe('planTree', () => {
  const scope = scopeOf(new URL('https://docs.test/docs/'));
  const ids = (url: string) => `id:${url.replace('https://docs.test/docs', '') || '/'}`;

  it('puts the start page and the first level at the top, deeper pages under their nearest imported ancestor', () => {
    const plan = planTree(
      [
        { url: 'https://docs.test/docs', title: 'Home' },
        { url: 'https://docs.test/docs/guide/install', title: 'Install' }, // found before its parent
        { url: 'https://docs.test/docs/guide', title: 'Guide' },
        { url: 'https://docs.test/docs/api/v1/auth', title: 'Auth' }, // no /api nor /api/v1 page
        { url: 'https://docs.test/docs/home', title: 'Another home' },
      ],
      scope,
      new Set(['home']),
      3,
      ids,
    );
    expect(plan.map(({ url: _url, ...entry }) => entry)).toEqual([
      { pageId: 'id:/', parentId: null, slug: 'home-2', position: 3, title: 'Home' },
      { pageId: 'id:/guide', parentId: null, slug: 'guide', position: 4, title: 'Guide' },
      { pageId: 'id:/home', parentId: null, slug: 'home-3', position: 5, title: 'Another home' },
      { pageId: 'id:/guide/install', parentId: 'id:/guide', slug: 'install', position: 0, title: 'Install' },
      { pageId: 'id:/api/v1/auth', parentId: null, slug: 'auth', position: 6, title: 'Auth' },
    ]);
  });

  it('plans nothing for no pages', () => {
    expect(planTree([], scope, new Set(), 0, ids)).toEqual([]);
  });
});

describe('extractPage', () => {
  const html = `<html><head><title>Fallback | Site</title><base href="/docs/"><meta name="description" content=" About it "></head><body>
    <header><a href="/docs/">Home</a></header><nav><a href="guide">Guide</a><a href="mailto:x@y.test">Mail</a></nav>
    <main><h1>Real title</h1><p>Text <a href="install#req">install</a> <a href="#local">here</a></p><img src="img/a.png" alt="A"><img src="data:image/png;base64,xx" alt="inline"></main>
    <footer>Footer</footer><script>track()</script></body></html>`;

  it('reads the title, description, links of the whole page and the main content with absolute URLs', () => {
    const page = extractPage(html, 'https://docs.test/docs/page');
    expect(page.title).toBe('Real title');
    expect(page.description).toBe('About it');
    expect(page.links).toEqual(['https://docs.test/docs/', 'https://docs.test/docs/guide', 'https://docs.test/docs/install#req']);
    expect(page.images).toEqual(['https://docs.test/docs/img/a.png']);
    expect(page.mainHtml).toContain('href="https://docs.test/docs/install#req"');
    expect(page.mainHtml).toContain('href="#local"');
    expect(page.mainHtml).not.toContain('Real title');
    expect(page.mainHtml).not.toContain('data:image');
  });

  it('falls back to <title> and <body>', () => {
    const page = extractPage('<html><head><title>Only title</title></head><body><p>Body text</p><nav>menu</nav></body></html>', 'https://docs.test/');
    expect(page.title).toBe('Only title');
    expect(page.mainHtml).toBe('<p>Body text</p>');
  });
});

describe('htmlToMarkdown', () => {
  it('converts with fenced code, rewritten links and images, dropped form controls', () => {
    const markdown = htmlToMarkdown(
      '<h2>Setup</h2><p>See <a href="https://docs.test/a">A</a> and <a href="#x">x</a>.</p><pre><code class="language-js">let a = 1;\n</code></pre><p><img src="https://docs.test/i.png" alt="I"><img src="https://cdn.test/j.png" alt="J"></p><button>Copy</button>',
      (href) => (href === 'https://docs.test/a' ? '/pages/P1' : href),
      (src) => (src === 'https://docs.test/i.png' ? '/files/F1' : null),
    );
    expect(markdown).toBe('## Setup\n\nSee [A](/pages/P1) and [x](#x).\n\n```js\nlet a = 1;\n```\n\n![I](/files/F1)J');
  });
});

describe('mapPool', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapPool([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});

describe('ancestorTitles', () => {
  it('lists titles from the root down', () => {
    const titles = ancestorTitles([
      { page_id: 'c', parent_id: 'b', title: 'C' },
      { page_id: 'a', parent_id: null, title: 'A' },
      { page_id: 'b', parent_id: 'a', title: 'B' },
    ]);
    expect(Object.fromEntries(titles)).toEqual({ a: [], b: ['A'], c: ['A', 'B'] });
  });
});
