import { documentToMarkdown, markdownToDocument } from '../document';
import type { MarkdownRefs } from '../document/to-markdown';
import { fileRef, pageRef } from '../markdown/markdown';
import type { PageCover, PageLayout } from '../revision-page.entity';
import { childrenOf, LayoutPage, LayoutPaths, layoutPaths, LayoutSpace, relativePath, SUMMARY, VARS_FILE } from './git-layout';

/** yaml is loaded on first use, not with the module: every start and test file loads this module, few read or write YAML. */
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (yamlModule ??= require('yaml') as typeof import('yaml'));
}

/** Lets the event loop breathe between bodies of a long export (one page's parse is bounded, the whole space is not). */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A space as GitBook's Git Sync writes it: path → bytes. Refs to the space's own pages, files and
 * reusable contents become paths relative to the file that holds them; anything else is written as
 * stored.
 */
export async function exportLayout(space: LayoutSpace): Promise<Map<string, Buffer>> {
  const paths = layoutPaths(space);
  const out = new Map<string, Buffer>();
  const children = childrenOf(space.pages);

  out.set(SUMMARY, Buffer.from(summary(space, paths, children)));
  let done = 0;
  for (const page of space.pages) {
    const path = paths.pageFiles.get(page.pageId);
    if (!path) continue;
    out.set(path, Buffer.from(pageFile(page, path, paths, page.parentId === null && path === 'README.md')));
    if (++done % 50 === 0) await yieldToLoop();
  }
  for (const reusable of space.reusableContents) {
    const path = paths.includeFiles.get(reusable.reusableContentId) as string;
    out.set(path, Buffer.from(`${frontMatter({ title: reusable.title })}${body(reusable.markdown, path, paths)}`));
  }
  for (const file of space.files) out.set(paths.assetFiles.get(file.fileId) as string, file.data);
  if (Object.keys(space.variables).length > 0) out.set(VARS_FILE, Buffer.from(yaml().stringify(space.variables)));
  return out;
}

/** The refs of the file at `from`: relative paths where the layout has a file for the target. */
export function refsFrom(from: string, paths: LayoutPaths): MarkdownRefs {
  return {
    page: (pageId, anchor) => {
      const to = paths.pageFiles.get(pageId);
      return to ? `${relativePath(from, to)}${anchor ? `#${anchor}` : ''}` : pageRef(pageId, anchor);
    },
    file: (fileId) => {
      const to = paths.assetFiles.get(fileId);
      return to ? relativePath(from, to) : fileRef(fileId);
    },
    include: (id) => {
      const to = paths.includeFiles.get(id);
      return to ? relativePath(from, to) : `.gitbook/includes/${id}.md`;
    },
  };
}

/** Stored bodies say their refs as `/pages/…`, `/files/…` and `.gitbook/includes/…`: a body without any is written as stored. */
const HAS_REFS = /\/pages\/|\/files\/|\.gitbook\/includes\//;

function body(markdown: string, path: string, paths: LayoutPaths): string {
  if (!markdown) return '';
  if (!HAS_REFS.test(markdown)) return markdown.endsWith('\n') ? markdown : `${markdown}\n`;
  return documentToMarkdown(markdownToDocument(markdown), { refs: refsFrom(path, paths) });
}

function pageFile(page: LayoutPage, path: string, paths: LayoutPaths, rootReadme: boolean): string {
  const matter: Record<string, unknown> = {};
  if (page.description !== null) matter.description = page.description;
  if (page.icon !== null) matter.icon = page.icon;
  if (page.emoji !== null) matter.emoji = page.emoji;
  if (page.cover) Object.assign(matter, coverMatter(page.cover, path, paths));
  if (page.layout) matter.layout = layoutMatter(page.layout);
  if (page.hidden) matter.hidden = true;
  if (page.noIndex) matter.noIndex = true;
  if (page.noRobotsIndex) matter.noRobotsIndex = true;
  if (Object.keys(page.variables).length > 0) matter.variables = page.variables;
  // The root README's file name does not say its slug.
  if (rootReadme && page.slug !== null) matter.slug = page.slug;
  const text = body(page.markdown, path, paths);
  return `${frontMatter(matter)}# ${page.title}\n${text ? `\n${text}` : ''}`;
}

export function frontMatter(matter: Record<string, unknown>): string {
  return Object.keys(matter).length > 0 ? `---\n${yaml().stringify(matter, { lineWidth: 0 })}---\n\n` : '';
}

/** GitBook's `cover`/`coverY` (plus `coverDark`): a file's relative path, or a URL. */
function coverMatter(cover: PageCover, from: string, paths: LayoutPaths): Record<string, unknown> {
  const refs = refsFrom(from, paths);
  const target = (ref: PageCover['ref']) => (ref?.kind === 'file' ? refs.file(ref.file) : ref?.kind === 'url' ? ref.url : undefined);
  const matter: Record<string, unknown> = {};
  if (cover.ref) matter.cover = target(cover.ref);
  if (cover.refDark) matter.coverDark = target(cover.refDark);
  matter.coverY = cover.yPos;
  return matter;
}

/** GitBook's `layout:` block: `{ width, cover: { visible, size }, title: { visible }, … }`. */
function layoutMatter(layout: PageLayout): Record<string, unknown> {
  const matter: Record<string, unknown> = {};
  if (layout.width !== undefined) matter.width = layout.width;
  if (layout.cover !== undefined || layout.coverSize !== undefined) {
    matter.cover = { ...(layout.cover !== undefined ? { visible: layout.cover } : {}), ...(layout.coverSize !== undefined ? { size: layout.coverSize } : {}) };
  }
  for (const name of ['title', 'description', 'tableOfContents', 'outline', 'pagination'] as const) {
    if (layout[name] !== undefined) matter[name] = { visible: layout[name] };
  }
  return matter;
}

/** `SUMMARY.md`: top-level pages, then each group as a `## Title` section; links as link items. */
function summary(space: LayoutSpace, paths: LayoutPaths, children: Map<string | null, LayoutPage[]>): string {
  const lines = ['# Table of contents', ''];
  const items = (list: LayoutPage[], depth: number) => {
    for (const page of list) {
      const indent = '  '.repeat(depth);
      if (page.kind === 'link') {
        lines.push(`${indent}* [${escapeTitle(page.title)}](${linkHref(page.linkTarget, paths)})`);
      } else {
        lines.push(`${indent}* [${escapeTitle(page.title)}](${destination(paths.pageFiles.get(page.pageId) as string)})`);
        items(children.get(page.pageId) ?? [], depth + 1);
      }
    }
  };
  const top = children.get(null) ?? [];
  // Top-level pages after a group have no place of their own in SUMMARY.md: they are written before the groups.
  items(
    top.filter((page) => page.kind !== 'group'),
    0,
  );
  for (const group of top.filter((page) => page.kind === 'group')) {
    const slug = group.slug ?? '';
    lines.push('', `## ${group.title} <a href="#${slug}" id="${slug}"></a>`, '');
    items(children.get(group.pageId) ?? [], 0);
  }
  return `${lines.join('\n')}\n`;
}

/** A link item's destination: a URL as it is; a ref to a page or file of the space as its path with the title `"link"`. */
function linkHref(target: Record<string, string> | null, paths: LayoutPaths): string {
  if (!target || target.kind === 'url') return destination(target?.url ?? '');
  const refs = refsFrom(SUMMARY, paths);
  if (target.kind === 'page') return `${destination(refs.page(target.page))} "link"`;
  if (target.kind === 'anchor' && target.page) return `${destination(refs.page(target.page, target.anchor))} "link"`;
  if (target.kind === 'file') return `${destination(refs.file(target.file))} "link"`;
  return `<> "${JSON.stringify(target).replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

const escapeTitle = (title: string) => title.replace(/[\\[\]]/g, (char) => `\\${char}`);
const destination = (href: string) => (/[\s<>()]/.test(href) || href === '' ? `<${href.replace(/[<>\\]/g, (char) => `\\${char}`)}>` : href);
