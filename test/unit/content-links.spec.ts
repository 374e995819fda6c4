import { classifyLink, collectLinks, LinkContext } from '../../src/modules/content/links/link-classifier';

const context: LinkContext = {
  pageIds: new Set(['p-home', 'p-install', 'p-api']),
  pagePaths: new Map([
    ['home', 'p-home'],
    ['guide/install', 'p-install'],
    ['api', 'p-api'],
  ]),
  fileIds: new Set(['f-logo']),
};
const on = (href: string) => classifyLink(href, 'p-install', 'guide/install', context);

describe('classifyLink', () => {
  it('treats absolute URLs as external and ok, whatever the scheme', () => {
    expect(on('https://example.com/docs')).toEqual({
      key: 'url:https://example.com/docs',
      status: 'ok',
      target: { kind: 'url', url: 'https://example.com/docs' },
    });
    expect(on('mailto:team@example.com').status).toBe('ok');
    expect(on('//cdn.example.com/x.png').status).toBe('ok');
  });

  it('treats stable refs to existing pages and files as in-app', () => {
    expect(on('/pages/p-api')).toEqual({ key: 'page:p-api', status: 'in-app', target: { kind: 'page', page: 'p-api' } });
    expect(on('/pages/p-api#auth')).toMatchObject({ key: 'page:p-api', status: 'in-app' });
    expect(on('/files/f-logo')).toEqual({ key: 'file:f-logo', status: 'in-app', target: { kind: 'file', file: 'f-logo' } });
  });

  it('treats stable refs to missing pages and files as broken', () => {
    expect(on('/pages/gone')).toMatchObject({ status: 'broken', target: { kind: 'page', page: 'gone' } });
    expect(on('/files/gone')).toMatchObject({ status: 'broken', target: { kind: 'file', file: 'gone' } });
  });

  it('resolves relative and root-relative paths against the page tree', () => {
    expect(on('../api')).toMatchObject({ key: 'page:p-api', status: 'in-app' });
    expect(on('/home')).toMatchObject({ key: 'page:p-home', status: 'in-app' });
    expect(on('/missing')).toEqual({ key: 'path:missing', status: 'broken', target: { kind: 'url', url: '/missing' } });
    expect(on('../../outside')).toMatchObject({ status: 'broken' });
  });

  it('treats an anchor as in-app on the same page', () => {
    expect(on('#setup')).toEqual({ key: 'anchor:p-install#setup', status: 'in-app', target: { kind: 'anchor', anchor: 'setup', page: 'p-install' } });
  });

  it('hashes very long keys so they fit an index', () => {
    const long = `https://example.com/${'x'.repeat(500)}`;
    const link = on(long);
    expect(link.key).toMatch(/^url:#[0-9a-f]{64}$/);
    expect(link.target).toEqual({ kind: 'url', url: long });
  });
});

describe('collectLinks', () => {
  it('groups links by target with the pages they appear on, images included, each page once', () => {
    const rows = collectLinks(
      [
        { pageId: 'p-home', path: 'home', markdown: 'See [install](/pages/p-install), [again](guide/install) and ![logo](/files/f-logo).' },
        { pageId: 'p-install', path: 'guide/install', markdown: '[Home](../home) [gone](/pages/nope) [site](https://example.com) `[not](/a/link)`' },
        { pageId: 'p-api', path: 'api', markdown: '![logo](/files/f-logo)\n\n```\n[in code](/nowhere)\n```' },
      ],
      context,
    );
    expect(rows).toEqual([
      { key: 'page:p-install', status: 'in-app', target: { kind: 'page', page: 'p-install' }, pages: ['p-home'] },
      { key: 'file:f-logo', status: 'in-app', target: { kind: 'file', file: 'f-logo' }, pages: ['p-home', 'p-api'] },
      { key: 'page:p-home', status: 'in-app', target: { kind: 'page', page: 'p-home' }, pages: ['p-install'] },
      { key: 'page:nope', status: 'broken', target: { kind: 'page', page: 'nope' }, pages: ['p-install'] },
      { key: 'url:https://example.com', status: 'ok', target: { kind: 'url', url: 'https://example.com' }, pages: ['p-install'] },
    ]);
  });
});
