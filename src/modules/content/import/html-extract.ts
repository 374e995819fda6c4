/** cheerio is loaded on first use, not with the module: every start and test file loads this module, few parse HTML. */
let cheerioModule: typeof import('cheerio/slim') | undefined;
function cheerio(): typeof import('cheerio/slim') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (cheerioModule ??= require('cheerio/slim') as typeof import('cheerio/slim'));
}

export interface ExtractedPage {
  title: string;
  description: string | null;
  /** The page's main content, with every link and image URL made absolute. */
  mainHtml: string;
  /** Every http(s) link of the whole page (navigation included: it is how the crawl finds pages). */
  links: string[];
  /** Images of the main content. */
  images: string[];
}

// Chrome around the content: never part of a page body.
const CHROME =
  'script, style, noscript, template, iframe, object, embed, form, nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"]';
const MAIN = ['main', '[role="main"]', 'article', '#content', '.content', 'body'];

function absolute(raw: string | undefined, base: string): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** Deepest element nesting of an imported page: cheerio's serializer and turndown recurse per level (500,000 nested `<div>`s overflowed the stack). */
export const MAX_HTML_NESTING = 512;

/** A page nested deeper than MAX_HTML_NESTING elements: the start page's is refused, others are skipped. */
export class PageTooDeepError extends Error {}

/** Elements whose end tag a page often leaves out (the parser closes them): they are not counted as nesting. */
const OPTIONAL_END = new Set(['p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'colgroup', 'rb', 'rt', 'rp', 'rtc']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);

/**
 * The deepest element nesting of an HTML text, counted in one pass over its tags (no parse): an
 * estimate on the high side for tag soup, exact for well-formed pages. Linear: the next `>` is
 * remembered rather than searched for again from every `<`.
 */
export function htmlNestingDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  let gt = -2;
  let at = html.indexOf('<');
  while (at !== -1 && at + 1 < html.length) {
    if (gt !== -1 && gt <= at) gt = html.indexOf('>', at + 1);
    if (gt === -1) break;
    const next = html.charCodeAt(at + 1);
    if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      if (end === -1) break;
      at = html.indexOf('<', end + 3);
      continue;
    }
    if (next === 0x2f) {
      if (depth > 0) depth--;
    } else if ((next >= 0x61 && next <= 0x7a) || (next >= 0x41 && next <= 0x5a)) {
      let end = at + 1;
      while (end < gt && /[\w-]/.test(html[end])) end++;
      const name = html.slice(at + 1, end).toLowerCase();
      if (name === 'script' || name === 'style') {
        const close = html.indexOf(`</${name}`, gt);
        if (close === -1) break;
        at = html.indexOf('<', close + 2);
        continue;
      }
      if (!VOID.has(name) && !OPTIONAL_END.has(name) && html.charCodeAt(gt - 1) !== 0x2f && ++depth > deepest) deepest = depth;
    }
    at = html.indexOf('<', at + 1);
  }
  return deepest;
}

/**
 * Reads one HTML page: its title (first `<h1>`, else `<title>`), its meta description, the links
 * to crawl, and its main content (`<main>`, `[role=main]`, `<article>`… else `<body>`) without
 * navigation, headers, footers and scripts. The title heading is taken out of the body, since
 * the page shows its title already.
 */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  if (htmlNestingDepth(html) > MAX_HTML_NESTING) throw new PageTooDeepError(`${pageUrl} nests its elements deeper than ${MAX_HTML_NESTING} levels`);
  const $ = cheerio().load(html);
  const base = absolute($('base[href]').attr('href'), pageUrl) ?? pageUrl;

  const links = $('a[href]')
    .filter((_, element) => !$(element).attr('href')?.trim().startsWith('#'))
    .map((_, element) => absolute($(element).attr('href'), base))
    .get()
    .filter((href): href is string => href !== null);

  const heading = $('h1').first();
  const title = (heading.text() || $('title').first().text()).replace(/\s+/g, ' ').trim();
  const description = $('meta[name="description"]').attr('content')?.trim() || null;

  $(CHROME).remove();
  const main = MAIN.map((selector) => $(selector).first()).find((candidate) => candidate.length > 0);
  if (!main) return { title, description, mainHtml: '', links, images: [] };
  main.find('h1').first().remove();

  const images: string[] = [];
  main.find('a[href]').each((_, element) => {
    const href = $(element).attr('href') as string;
    if (href.startsWith('#')) return;
    const resolved = absolute(href, base);
    if (resolved) $(element).attr('href', resolved);
    else $(element).removeAttr('href');
  });
  main.find('img').each((_, element) => {
    const src = absolute($(element).attr('src'), base);
    if (src) {
      $(element).attr('src', src);
      images.push(src);
    } else $(element).replaceWith($(element).attr('alt') ?? '');
  });
  return { title, description, mainHtml: main.html() ?? '', links, images };
}
