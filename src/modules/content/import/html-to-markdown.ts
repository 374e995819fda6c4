import TurndownService from 'turndown';
import { encodeAttr } from '../document/dialect-scan';
import { markDialect } from './html-dialect';

/** cheerio is loaded on first use, not with the module: every start and test file loads this module, few parse HTML. */
let cheerioModule: typeof import('cheerio/slim') | undefined;
function cheerio(): typeof import('cheerio/slim') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (cheerioModule ??= require('cheerio/slim') as typeof import('cheerio/slim'));
}

/** What turndown hands a rule: a DOM node (domino's), read through these members only. */
interface DomNode {
  nodeName: string;
  firstChild: DomNode | null;
  parentNode: DomNode | null;
  previousElementSibling?: DomNode | null;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', hr: '---' });
const node = (value: unknown) => value as DomNode;

// Code blocks keep their language from `class="language-x"` (the common convention of highlighters)
// and their title from `data-gb-title` (set by `markDialect` from the markups that show one).
turndown.addRule('fencedCodeWithLanguage', {
  filter: (element) => element.nodeName === 'PRE' && element.firstChild?.nodeName === 'CODE',
  replacement: (_content, element) => {
    const code = node(element.firstChild);
    const language = /(?:^|\s)(?:language|lang)-([\w+-]+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
    const text = (code.textContent ?? '').replace(/\n$/, '');
    const fence = text.includes('```') ? '~~~' : '```';
    const block = `${fence}${language}\n${text}\n${fence}`;
    const title = node(element).getAttribute('data-gb-title');
    return title ? `\n\n{% code title="${encodeAttr(title)}" %}\n${block}\n{% endcode %}\n\n` : `\n\n${block}\n\n`;
  },
});

// Admonitions, marked by `markDialect` with their style → hints.
turndown.addRule('hint', {
  filter: (element) => element.getAttribute?.('data-gb-hint') !== null && element.getAttribute?.('data-gb-hint') !== undefined,
  replacement: (content, element) => `\n\n{% hint style="${node(element).getAttribute('data-gb-hint')}" %}\n${content.trim()}\n{% endhint %}\n\n`,
});

// `<details><summary>` → an expandable, as the dialect writes it.
turndown.addRule('details', {
  filter: ['details'],
  replacement: (content, element) => {
    const open = node(element).getAttribute('open') !== null ? ' open' : '';
    return `\n\n<details${open}>\n\n${content.trim()}\n\n</details>\n\n`;
  },
});
turndown.addRule('summary', {
  filter: (element) => element.nodeName === 'SUMMARY' && element.parentNode?.nodeName === 'DETAILS',
  replacement: (content) => `\n\n<summary>${oneLine(content)}</summary>\n\n`,
});

// `<figure><img><figcaption>` → an image with its caption, on one line as the dialect reads it.
turndown.addRule('figure', {
  filter: (element) => element.nodeName === 'FIGURE' && element.getAttribute('data-gb-figure') !== null,
  replacement: (_content, element) => {
    const figure = node(element);
    const attr = (name: string) => figure.getAttribute(`data-gb-${name}`);
    const width = attr('width') ? ` width="${encodeAttr(attr('width') as string)}"` : '';
    const caption = attr('caption') ? `<figcaption><p>${escapeHtml(attr('caption') as string)}</p></figcaption>` : '';
    return `\n\n<figure><img src="${encodeAttr(attr('src') ?? '')}" alt="${encodeAttr(attr('alt') ?? '')}"${width}>${caption}</figure>\n\n`;
  },
});

// Tables → pipe tables (the dialect's `table` block): the first row is the header.
turndown.addRule('tableCell', {
  filter: ['th', 'td'],
  replacement: (content) => ` ${oneLine(content).replace(/\|/g, '\\|')} |`,
});
turndown.addRule('tableRow', {
  filter: ['tr'],
  replacement: (content, element) => {
    const row = `|${content}\n`;
    if (isFirstRow(node(element))) {
      const cells = (content.match(/ \|(?=$| )/g) ?? []).length;
      return `${row}|${' --- |'.repeat(Math.max(cells, 1))}\n`;
    }
    return row;
  },
});
turndown.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
turndown.addRule('table', { filter: ['table'], replacement: (content) => `\n\n${content.trim()}\n\n` });
turndown.remove(['button', 'input', 'select', 'textarea', 'caption', 'colgroup']);

function isFirstRow(row: DomNode): boolean {
  if (row.previousElementSibling) return false;
  const section = row.parentNode;
  if (!section || section.nodeName === 'TABLE') return true;
  if (section.nodeName === 'THEAD') return true;
  // A `tbody` after a `thead`: its rows are not the first.
  return !section.previousElementSibling || section.previousElementSibling.nodeName !== 'THEAD';
}

/** Lines joined by one space (line by line, so linear whatever the spaces). */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A page's main content as markdown in GitBook's dialect, after rewriting its links and images:
 * `rewriteLink` and `rewriteImage` get each absolute URL and return what the markdown should point
 * at. Tables, admonitions, details, figures and titled code blocks become the dialect's blocks.
 */
export function htmlToMarkdown(html: string, rewriteLink: (href: string) => string, rewriteImage: (src: string) => string | null): string {
  const $ = cheerio().load(html, {}, false);
  $('a[href]').each((_, element) => {
    const href = $(element).attr('href') as string;
    $(element).attr('href', href.startsWith('#') ? href : rewriteLink(href));
  });
  $('img[src]').each((_, element) => {
    const target = rewriteImage($(element).attr('src') as string);
    if (target) $(element).attr('src', target);
    else $(element).replaceWith($(element).attr('alt') ?? '');
  });
  markDialect($);
  return turndown
    .turndown($.html())
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
