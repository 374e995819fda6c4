import { relativePath } from '../tree/slugs';

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const PAGE_LINK = /\]\(\/pages\/([\w-]+)(#[^)\s]*)?\)/g;

/**
 * Bodies store page links as stable refs (`/pages/ID`). For `format.markdown.refs=relative` (the
 * default of the public API) they become paths relative to the page being read, so the markdown
 * reads like a folder of files. Code (fenced blocks and inline spans) is left untouched; links to
 * pages that do not exist keep their stable form, which is what makes them visibly broken.
 */
export function withRelativeRefs(markdown: string, fromPath: string, pathOf: (pageId: string) => string | null | undefined): string {
  if (!markdown.includes('](/pages/')) return markdown;
  const relative = (text: string) =>
    text.replace(PAGE_LINK, (whole, pageId: string, anchor: string | undefined) => {
      const target = pathOf(pageId);
      return target ? `](${relativePath(fromPath, target)}${anchor ?? ''})` : whole;
    });
  // Without a backtick or `~~~` there is no code to skip, and no link spans lines: one pass over the whole text.
  if (!markdown.includes('`') && !markdown.includes('~~~')) return relative(markdown);
  return mapOutsideCode(markdown, relative);
}

/** Maps the markdown's text outside code (fenced blocks and inline spans), which is left as it is. */
export function mapOutsideCode(markdown: string, map: (text: string) => string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const opener = FENCE.exec(line);
      if (fence) {
        if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = null;
        return line;
      }
      if (opener) {
        fence = opener[1];
        return line;
      }
      return splitInlineCode(line)
        .map((part, index) => (index % 2 === 1 ? part : map(part)))
        .join('');
    })
    .join('\n');
}

/**
 * The pages a body may refer to by stable ref: every `](/pages/ID` of the text, code included (a
 * superset of what `withRelativeRefs` asks for, found without splitting the body into lines).
 */
export function referencedPageIds(markdown: string): string[] {
  if (!markdown.includes('](/pages/')) return [];
  const ids = new Set<string>();
  for (const match of markdown.matchAll(PAGE_LINK)) ids.add(match[1]);
  return [...ids];
}

/**
 * `line.split(/(`+[^`]*`+)/)` in one pass: text and code spans alternating (a run of backticks, what
 * follows up to the next backtick, and the run there; or a lone run of two or more). The pattern
 * itself retried from every backtick of a run (regexp/no-super-linear-move).
 */
export function splitInlineCode(line: string): string[] {
  const parts: string[] = [];
  const n = line.length;
  let last = 0;
  let at = line.indexOf('`');
  while (at !== -1) {
    let open = at;
    while (open < n && line[open] === '`') open++;
    const close = line.indexOf('`', open);
    let end: number;
    if (close !== -1) {
      end = close;
      while (end < n && line[end] === '`') end++;
    } else if (open - at >= 2) {
      end = open;
    } else {
      break;
    }
    parts.push(line.slice(last, at), line.slice(at, end));
    last = end;
    at = line.indexOf('`', end);
  }
  parts.push(line.slice(last));
  return parts;
}
