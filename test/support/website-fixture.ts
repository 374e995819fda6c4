import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A small website served on 127.0.0.1 by the test itself, for website imports. */
export type Route =
  { status?: number; type?: string; body?: string | Buffer; headers?: Record<string, string> } | ((req: IncomingMessage, res: ServerResponse) => void);

export interface Website {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function serveWebsite(routes: Record<string, Route>): Promise<Website> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push(path);
    const route = routes[path];
    if (typeof route === 'function') return route(req, res);
    if (!route) return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8', ...route.headers }).end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 4×3 GIF: the header is all image-size reads. */
export const GIF_4x3 = (() => {
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
  gif.writeUInt16LE(4, 6);
  gif.writeUInt16LE(3, 8);
  return gif;
})();
export const SVG_40x20 = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>';

const page = (title: string, main: string, nav = '') =>
  `<!doctype html><html><head><title>${title} | Acme</title><meta name="description" content="About ${title}"></head>` +
  `<body><header><a href="/docs/">Acme</a></header><nav>${nav}</nav><main><h1>${title}</h1>${main}</main><footer>© Acme footer text</footer>` +
  `<script>window.tracking = true;</script></body></html>`;

const NAV = [
  '<a href="/docs/guide">Guide</a>',
  '<a href="/docs/guide/install.html">Install</a>',
  '<a href="/docs/widgets">Widgets</a>',
  '<a href="/docs/private/secret">Secret</a>',
  '<a href="/docs/loop">Loop</a>',
  '<a href="/outside">Outside</a>',
  '<a href="https://example.com/">Example</a>',
].join(' ');

/**
 * The documentation site of the e2e tests, under `/docs/`:
 * - `/docs/` (home) → `/docs/guide`, `/docs/guide/install.html` (nested), `/docs/widgets`;
 * - images `/docs/img/logo.gif` (4×3) and `/docs/img/diagram.svg` (40×20);
 * - a link to `/docs/missing` (404), a page `/docs/private/secret` blocked by robots.txt, a redirect loop at `/docs/loop`;
 * - `/outside` is on the same origin but not under `/docs/`, so never imported.
 */
export const DOCS_SITE: Record<string, Route> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private/\n' },
  '/docs/': {
    body: page(
      'Acme Documentation',
      '<p>Welcome to the <strong>Acme</strong> docs. Start with the <a href="/docs/guide">guide</a>.</p><p><img src="img/logo.gif" alt="Acme logo"></p>',
      NAV,
    ),
  },
  '/docs/guide': {
    body: page(
      'User Guide',
      '<p>The guide explains everyday use.</p><h2>Daily work</h2><p>Widgets can be arranged, but this section is about daily work.</p>' +
        '<p>Read <a href="/docs/guide/install.html#requirements">the installation</a>, then <a href="/docs/missing">the missing page</a>.</p>',
      NAV,
    ),
  },
  '/docs/guide/install.html': {
    body: page(
      'Installation',
      '<p>Install the frobnicator first.</p><h2 id="requirements">Requirements</h2><p>You need Node.js and a working frobnicator.</p>' +
        '<pre><code class="language-sh">npm install acme\n</code></pre><p><img src="/docs/img/diagram.svg" alt="Diagram"> <img src="/docs/img/logo.gif" alt="Logo again"></p>' +
        '<p>Back to the <a href="../guide">guide</a> or <a href="https://example.com/help">external help</a>.</p>',
      NAV,
    ),
  },
  '/docs/widgets': { body: page('Widgets', '<p>All about configuring the product catalogue.</p>', NAV) },
  '/docs/private/secret': { body: page('Secret', '<p>Never imported.</p>') },
  '/docs/loop': { status: 302, headers: { location: '/docs/loop' } },
  '/docs/img/logo.gif': { type: 'image/gif', body: GIF_4x3 },
  '/docs/img/diagram.svg': { type: 'image/svg+xml', body: SVG_40x20 },
  '/outside': { body: page('Outside', '<p>Not under /docs/.</p>') },
  '/plain.txt': { type: 'text/plain', body: 'not html' },
};

/**
 * A generated site of `count` pages under `/site/`: a home page linking to sections of 50 pages
 * each, each section linking to its pages (three levels, as documentation sites tend to be).
 */
export function generatedSite(count: number): Record<string, Route> {
  const routes: Record<string, Route> = {};
  const sections = Math.max(1, Math.ceil((count - 1) / 51));
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const body = (n: number) =>
    Array.from(
      { length: 4 },
      (_, p) => `<h2>Part ${p}</h2><p>${Array.from({ length: 40 }, (_, w) => words[(n + p + w) % words.length]).join(' ')} page ${n}.</p>`,
    ).join('');
  const sectionLinks: string[] = [];
  let made = 1;
  for (let s = 0; s < sections && made < count; s++) {
    sectionLinks.push(`<a href="/site/s${s}/">Section ${s}</a>`);
    made++;
    const pageLinks: string[] = [];
    for (let p = 0; p < 50 && made < count; p++, made++) {
      pageLinks.push(`<a href="/site/s${s}/p${p}">Page ${p}</a>`);
      routes[`/site/s${s}/p${p}`] = { body: page(`Section ${s} page ${p}`, body(s * 50 + p)) };
    }
    routes[`/site/s${s}/`] = { body: page(`Section ${s}`, `<p>Pages of section ${s}.</p>${pageLinks.join(' ')}`) };
  }
  routes['/site/'] = { body: page('Generated site', `<p>${count} pages.</p>${sectionLinks.join(' ')}`) };
  return routes;
}
