import { appendSuffix, joinPath, parseDestination, siteSpacePath, sourceParts } from '../../src/modules/sites/redirects/redirect-destination';
import { SOURCE_PATTERN } from '../../src/modules/sites/redirects/dto/site-redirect.dto';
import { conditionHolds } from '../../src/modules/sites/adaptive-content';
import { excerptAround } from '../../src/modules/sites/search/site-search.presenter';

describe('site redirects: sources and destinations', () => {
  it('accepts the public source pattern and nothing else', () => {
    for (const ok of ['/a', '/a/b', '/a/*', '/a*', '/%20x', '/v1.2/~x+y']) expect(SOURCE_PATTERN.test(ok)).toBe(true);
    for (const bad of ['a', '/', '/*', '/a*b', '/a//b', '/a b', '/a/**', '/é']) expect(SOURCE_PATTERN.test(bad)).toBe(false);
  });

  it('splits a wildcard source into its prefix', () => {
    expect(sourceParts('/docs/*')).toEqual({ prefix: '/docs/', wildcard: true });
    expect(sourceParts('/docs*')).toEqual({ prefix: '/docs', wildcard: true });
    expect(sourceParts('/docs')).toEqual({ prefix: '/docs', wildcard: false });
  });

  it('places site spaces and joins paths with one slash', () => {
    expect(siteSpacePath({ sectionPath: null, sectionDefault: false, path: 'guides', isDefault: true })).toBe('/');
    expect(siteSpacePath({ sectionPath: 'api', sectionDefault: false, path: 'v2', isDefault: false })).toBe('/api/v2');
    expect(siteSpacePath({ sectionPath: 'api', sectionDefault: false, path: 'v2', isDefault: true })).toBe('/api');
    // The default section is served at the site's root: its path named explicitly only redirects there.
    expect(siteSpacePath({ sectionPath: 'guides', sectionDefault: true, path: 'v2', isDefault: false })).toBe('/v2');
    expect(siteSpacePath({ sectionPath: 'guides', sectionDefault: true, path: 'v1', isDefault: true })).toBe('/');
    expect(joinPath('/', 'a/b')).toBe('/a/b');
    expect(joinPath('/api', '/a')).toBe('/api/a');
    expect(appendSuffix('https://x.example.com/v2?q=1', 'users', true)).toBe('https://x.example.com/v2/users?q=1');
  });

  it('checks destinations by kind, naming the field', () => {
    expect(parseDestination({ kind: 'site-space', siteSpaceId: 'ss1' }, false)).toEqual({ kind: 'site-space', siteSpaceId: 'ss1' });
    expect(() => parseDestination({ kind: 'path', spaceId: 's', path: 'a' }, false)).toThrow(/destination.kind/);
    expect(parseDestination({ kind: 'path', spaceId: 's', path: '/a/b/' }, true)).toEqual({ kind: 'path', spaceId: 's', path: 'a/b' });
    expect(() => parseDestination({ kind: 'site-page', siteSpaceId: 'ss1' }, true)).toThrow(/destination.pageId/);
    expect(() => parseDestination({ kind: 'external', url: 'ftp://x' }, true)).toThrow(/destination.url/);
    expect(() => parseDestination({ kind: 'site-space', siteSpaceId: 'ss1', extra: 1 }, true)).toThrow(/destination.extra/);
  });
});

describe('site search: conditions and excerpts', () => {
  it('evaluates conditions over the visitor claims; missing claims are absent, broken conditions hide', () => {
    expect(conditionHolds(null, {})).toBe(true);
    expect(conditionHolds('visitor.claims.beta === true', { beta: true })).toBe(true);
    expect(conditionHolds('visitor.claims.beta === true', {})).toBe(false);
    expect(conditionHolds('!visitor.claims.unsigned.trial', { unsigned: { trial: false } })).toBe(true);
    expect(conditionHolds('visitor.claims.plan == "pro" || visitor.claims.seats > 10', { plan: 'free', seats: 11 })).toBe(true);
    expect(conditionHolds('visitor.claims.x ? false : true', {})).toBe(true);
    expect(conditionHolds('visitor.claims[0]', { 0: true })).toBe(false);
    expect(conditionHolds('(((', {})).toBe(false);
    expect(conditionHolds('visitor.claims.constructor', {})).toBe(false);
  });

  it('cuts a long text around the first match, at spaces', () => {
    const text = `${'alpha '.repeat(200)}the zebra runs ${'omega '.repeat(200)}`;
    const excerpt = excerptAround(text, 'zebra');
    expect(excerpt).toMatch(/^….*zebra.*…$/);
    expect(excerpt.length).toBeLessThan(370);
    expect(excerptAround('short text', 'zebra')).toBe('short text');
    // Stemmed matches: "running" finds "run…".
    expect(excerptAround(`${'x '.repeat(300)}she runs fast ${'y '.repeat(300)}`, 'running')).toMatch(/runs/);
  });
});
