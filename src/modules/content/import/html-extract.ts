import { load } from 'cheerio/slim';

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

/**
 * Reads one HTML page: its title (first `<h1>`, else `<title>`), its meta description, the links
 * to crawl, and its main content (`<main>`, `[role=main]`, `<article>`… else `<body>`) without
 * navigation, headers, footers and scripts. The title heading is taken out of the body, since
 * the page shows its title already.
 */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const $ = load(html);
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
