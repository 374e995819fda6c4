/** cheerio is loaded on first use, not with the module: every start and test file loads this module, few parse HTML. */
let cheerioModule: typeof import('cheerio/slim') | undefined;
function cheerio(): typeof import('cheerio/slim') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (cheerioModule ??= require('cheerio/slim') as typeof import('cheerio/slim'));
}

/** The public `Embed` of a link (the `link` alternative): what a reader sees of a URL before opening it. */
export interface LinkEmbedJson {
  type: 'link';
  title: string;
  site: string;
  icon?: string;
}

/** The embed of a URL that could not be fetched: its own text as the title, its host as the site. */
export function bareLinkEmbed(url: string): LinkEmbedJson {
  return { type: 'link', title: url, site: siteOf(url) };
}

/** The embed a fetched page describes: Open Graph first, then `<title>`; the icon its `<link rel=icon>` names. */
export function linkEmbedFromHtml(url: string, html: string): LinkEmbedJson {
  const $ = cheerio().load(html);
  const meta = (key: string) => ($(`meta[property="${key}"]`).attr('content') ?? $(`meta[name="${key}"]`).attr('content'))?.trim() || undefined;
  const title = meta('og:title') ?? meta('twitter:title') ?? ($('title').first().text().trim() || undefined);
  const embed: LinkEmbedJson = { type: 'link', title: clip(title ?? url), site: clip(meta('og:site_name') ?? siteOf(url)) };
  const icon = absoluteHttp($('link[rel~="icon"]').first().attr('href') ?? $('link[rel="apple-touch-icon"]').first().attr('href'), url);
  if (icon) embed.icon = icon;
  return embed;
}

/** The embed of a URL that answered something other than HTML (an image, a PDF): its file name as the title. */
export function linkEmbedOfFile(url: string): LinkEmbedJson {
  const name = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
  return { type: 'link', title: clip(name || url), site: siteOf(url) };
}

function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

function absoluteHttp(raw: string | undefined, base: string): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);
