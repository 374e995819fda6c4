import { load } from 'cheerio/slim';
import TurndownService from 'turndown';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', hr: '---' });
// Code blocks keep their language from `class="language-x"` (the common convention of highlighters).
turndown.addRule('fencedCodeWithLanguage', {
  filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName === 'CODE',
  replacement: (_content, node) => {
    const code = node.firstChild as unknown as { getAttribute(name: string): string | null; textContent: string | null };
    const language = /(?:^|\s)(?:language|lang)-([\w+-]+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
    const text = (code.textContent ?? '').replace(/\n$/, '');
    const fence = text.includes('```') ? '~~~' : '```';
    return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
  },
});
turndown.remove(['button', 'input', 'select', 'textarea']);

/**
 * A page's main content as markdown, after rewriting its links and images: `rewriteLink` and
 * `rewriteImage` get each absolute URL and return what the markdown should point at.
 */
export function htmlToMarkdown(html: string, rewriteLink: (href: string) => string, rewriteImage: (src: string) => string | null): string {
  const $ = load(html, {}, false);
  $('a[href]').each((_, element) => {
    const href = $(element).attr('href') as string;
    $(element).attr('href', href.startsWith('#') ? href : rewriteLink(href));
  });
  $('img[src]').each((_, element) => {
    const target = rewriteImage($(element).attr('src') as string);
    if (target) $(element).attr('src', target);
    else $(element).replaceWith($(element).attr('alt') ?? '');
  });
  return turndown
    .turndown($.html())
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
