import { derivePaths, duplicateSiblingSlugs, relativePath, resolvePagePath, slugify, uniqueSlug } from '../../src/modules/content/tree/slugs';

describe('slugify', () => {
  it.each([
    ['Getting Started', 'getting-started'],
    ['  Café & Crème brûlée ', 'cafe-creme-brulee'],
    ["What's new?", 'whats-new'],
    ['install.html', 'install-html'],
    ['API_v2 -- Reference', 'api-v2-reference'],
    ['🎉', 'page'],
    ['', 'page'],
  ])('%j → %s', (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });

  it('keeps slugs at 100 characters at most, without a trailing dash', () => {
    expect(slugify('a'.repeat(150))).toHaveLength(100);
    expect(slugify(`${'a'.repeat(99)} b`)).toBe('a'.repeat(99));
  });
});

describe('uniqueSlug', () => {
  it('numbers repeats and remembers what it gave', () => {
    const taken = new Set<string>(['intro']);
    expect(uniqueSlug('intro', taken)).toBe('intro-2');
    expect(uniqueSlug('intro', taken)).toBe('intro-3');
    expect(uniqueSlug('setup', taken)).toBe('setup');
    expect(taken).toEqual(new Set(['intro', 'intro-2', 'intro-3', 'setup']));
  });

  it('stays within 100 characters when numbering a long slug', () => {
    const long = 'a'.repeat(100);
    const taken = new Set([long]);
    const next = uniqueSlug(long, taken);
    expect(next).toHaveLength(100);
    expect(next.endsWith('-2')).toBe(true);
  });
});

describe('derivePaths', () => {
  it('joins the slugs from the root down', () => {
    const paths = derivePaths([
      { id: 'c', parentId: 'b', slug: 'install' },
      { id: 'a', parentId: null, slug: 'home' },
      { id: 'b', parentId: null, slug: 'guide' },
      { id: 'l', parentId: 'b', slug: null },
    ]);
    expect(Object.fromEntries(paths)).toEqual({ a: 'home', b: 'guide', c: 'guide/install', l: null });
  });

  it('refuses a cycle and an unknown parent', () => {
    expect(() =>
      derivePaths([
        { id: 'a', parentId: 'b', slug: 'a' },
        { id: 'b', parentId: 'a', slug: 'b' },
      ]),
    ).toThrow(/cycle/);
    expect(() => derivePaths([{ id: 'a', parentId: 'zz', slug: 'a' }])).toThrow(/unknown parent/);
  });

  it('finds slugs repeated among siblings, not across parents', () => {
    expect(
      duplicateSiblingSlugs([
        { id: 'a', parentId: null, slug: 'intro' },
        { id: 'b', parentId: 'a', slug: 'intro' },
        { id: 'c', parentId: null, slug: 'intro' },
      ]),
    ).toEqual(['c']);
  });
});

describe('relative paths between pages', () => {
  it.each([
    ['guide/install', 'guide/config', 'config'],
    ['guide/install', 'api', '../api'],
    ['guide/install', 'guide', '../guide'],
    ['home', 'guide/install', 'guide/install'],
    ['a/b/c', 'a/x/y', '../x/y'],
  ])('%s → %s is %s, and resolves back', (from, to, expected) => {
    expect(relativePath(from, to)).toBe(expected);
    expect(resolvePagePath(from, expected)).toBe(to);
  });

  it.each([
    ['guide/install', '/api/auth', 'api/auth'],
    ['guide/install', '../README.md', null],
    ['guide/install', 'config.md#top', 'guide/config'],
    ['guide/install', './sub/README.md', 'guide/sub'],
    ['home', '../../etc', null],
    ['guide/install', 'caf%C3%A9', 'guide/café'],
  ])('on %s, %s resolves to %s', (from, href, expected) => {
    expect(resolvePagePath(from, href)).toBe(expected);
  });
});
