import type { CheerioAPI } from 'cheerio/slim';

/** The hint styles of GitBook's dialect, by the words documentation generators put in class names. */
const HINT_STYLES: [RegExp, 'info' | 'warning' | 'danger' | 'success'][] = [
  [/(?:^|[\s_-])(?:danger|error|failure|fail|bug|caution|critical)(?:$|[\s_-])/i, 'danger'],
  [/(?:^|[\s_-])(?:warning|warn|attention|important)(?:$|[\s_-])/i, 'warning'],
  [/(?:^|[\s_-])(?:tip|success|check|done|hint)(?:$|[\s_-])/i, 'success'],
];

/** The admonition markups of common generators: the box, and its title element (dropped: the style says it). */
const ADMONITIONS: { box: string; title: string }[] = [
  // MkDocs, Sphinx, Python-Markdown
  { box: 'div.admonition', title: '.admonition-title' },
  // GitHub
  { box: 'div.markdown-alert', title: '.markdown-alert-title' },
  // Docusaurus
  { box: 'div.theme-admonition, div.admonition', title: '[class*="admonitionHeading"], [class*="admonition-heading"]' },
  // Starlight, VitePress, and plain <aside>
  { box: 'aside, div.custom-block', title: '.starlight-aside__title, .custom-block-title' },
  // Bootstrap-style alerts and generic callouts
  { box: 'div.alert, div.callout', title: '.alert-title, .callout-title' },
];

/** Elements that name the code block after them (or the one in the same container). */
const CODE_TITLES = [
  '[class*="codeBlockTitle"]',
  '.highlight > .filename',
  '.code-title',
  '.code-block-title',
  '[data-rehype-pretty-code-title]',
  'figure > figcaption',
].join(', ');

/**
 * Marks in the HTML what the Markdown rules turn into dialect blocks (`html-to-markdown.ts`):
 * admonitions get `data-gb-hint`, figures with one image `data-gb-figure`, titled code blocks
 * `data-gb-title`; each `pre` keeps a single `code` child.
 */
export function markDialect($: CheerioAPI): void {
  for (const { box, title } of ADMONITIONS) {
    $(box).each((_, element) => {
      const $box = $(element);
      if ($box.attr('data-gb-hint')) return;
      $box.attr('data-gb-hint', hintStyle($box.attr('class') ?? ''));
      $box.find(title).first().remove();
    });
  }

  $(CODE_TITLES).each((_, element) => {
    const $title = $(element);
    const pre = $title.nextAll('pre').first().length ? $title.nextAll('pre').first() : $title.parent().find('pre').first();
    const text = $title.text().trim();
    if (!pre.length || !text || text.includes('\n')) return;
    pre.attr('data-gb-title', text);
    $title.remove();
  });
  $('pre[data-title], pre[title]').each((_, element) => {
    const $pre = $(element);
    if (!$pre.attr('data-gb-title')) $pre.attr('data-gb-title', ($pre.attr('data-title') ?? $pre.attr('title') ?? '').trim());
  });

  // One `code` child per `pre` (highlighters add spans around or before it), so every block is fenced.
  $('pre').each((_, element) => {
    const $pre = $(element);
    const code = $pre.find('code').first();
    const language = code.attr('class') ?? $pre.attr('class') ?? $pre.parent().attr('class') ?? '';
    const text = (code.length ? code : $pre).text();
    $pre.empty().append($('<code></code>').attr('class', language).text(text));
  });

  $('figure').each((_, element) => {
    const $figure = $(element);
    const images = $figure.find('img');
    if (images.length !== 1 || $figure.find('pre, table').length > 0) return;
    const image = images.first();
    $figure.attr('data-gb-figure', '');
    $figure.attr('data-gb-src', image.attr('src') ?? '');
    $figure.attr('data-gb-alt', image.attr('alt') ?? '');
    const width = image.attr('width');
    if (width && /^\d+%?$/.test(width)) $figure.attr('data-gb-width', width);
    const caption = $figure.find('figcaption').text().replace(/\s+/g, ' ').trim();
    if (caption) $figure.attr('data-gb-caption', caption);
  });
}

function hintStyle(classes: string): 'info' | 'warning' | 'danger' | 'success' {
  for (const [pattern, style] of HINT_STYLES) if (pattern.test(classes)) return style;
  return 'info';
}
