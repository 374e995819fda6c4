import { relativePath } from '../tree/slugs';

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const PAGE_LINK = /\]\(\/pages\/([A-Za-z0-9_-]+)(#[^)\s]*)?\)/g;

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
      return line
        .split(/(`+[^`]*`+)/)
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
