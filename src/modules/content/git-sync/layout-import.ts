import { posix } from 'node:path';
import { documentToMarkdown, markdownToDocument } from '../document';
import type { PageCover, PageLayout } from '../revision-page.entity';
import { slugify, uniqueSlug } from '../tree/slugs';
import {
  ASSETS_DIR,
  CONFIG_FILE,
  INCLUDES_DIR,
  LayoutFile,
  LayoutPage,
  layoutPaths,
  LayoutReusableContent,
  LayoutSpace,
  README,
  resolveRelative,
  SUMMARY,
  VARS_FILE,
  eachRef,
} from './git-layout';
import { contentTypeOf } from './content-types';

/** yaml is loaded on first use, not with the module: every start and test file loads this module, few read or write YAML. */
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (yamlModule ??= require('yaml') as typeof import('yaml'));
}

/** A repository that cannot be read as a space (no summary, a broken front matter…): the import fails with this message. */
export class LayoutError extends Error {}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const SLUG = /^[\w.-]{1,100}$/;
const utf8 = (data: Buffer) => data.toString('utf8');

interface Entry {
  kind: 'document' | 'group' | 'link';
  title: string;
  depth: number;
  /** Repository path of a document's file. */
  path?: string;
  slug?: string;
  linkTarget?: Record<string, string>;
  children: Entry[];
}

/**
 * Files of a repository in GitBook's Git Sync layout → a space. Ids are those of `previous` (the
 * space being replaced) wherever the path is the same: a page whose file did not move, a file whose
 * asset path did not change, a reusable content whose include file is the same; new ids elsewhere.
 * Reads `.gitbook.yaml` (`root`, `structure.summary`, `structure.readme`) when there is one.
 */
export async function importLayout(repository: Map<string, Buffer>, previous: LayoutSpace, newId: () => string): Promise<LayoutSpace> {
  const files = withinRoot(repository);
  const summaryPath = files.config.summary;
  const summaryFile = files.get(summaryPath);
  if (!summaryFile) throw new LayoutError(`${summaryPath} not found: the repository is not in GitBook's Git Sync layout`);

  const before = layoutPaths(previous);
  const pageAt = invert(before.pageFiles);
  const fileAt = invert(before.assetFiles);
  const includeAt = invert(before.includeFiles);
  const previousPages = new Map(previous.pages.map((page) => [page.pageId, page]));
  const previousFiles = new Map(previous.files.map((file) => [file.fileId, file]));
  const taken = new Set<string>();
  const idFor = (candidate: string | undefined) => {
    const id = candidate && !taken.has(candidate) ? candidate : newId();
    taken.add(id);
    return id;
  };

  // Ids first (every page, file and reusable content), so that bodies can point at any of them.
  const entries = parseSummary(utf8(summaryFile), summaryPath);
  const pageIds = new Map<Entry, string>();
  const idOfPath = new Map<string, string>();
  const walk = (list: Entry[], visit: (entry: Entry) => void) => list.forEach((entry) => (visit(entry), walk(entry.children, visit)));
  // Links keep their id by title, groups by slug.
  const previousByKey = new Map<string, string>();
  for (const page of previous.pages) {
    const key = page.kind === 'group' ? `group\0${page.slug}` : page.kind === 'link' ? `link\0${page.title}` : undefined;
    if (key && !previousByKey.has(key)) previousByKey.set(key, page.pageId);
  }
  walk(entries, (entry) => {
    if (entry.kind === 'document') {
      if (idOfPath.has(entry.path as string)) entry.kind = 'link';
      else {
        const id = idFor(pageAt.get(entry.path === files.config.readme ? README : (entry.path as string)));
        pageIds.set(entry, id);
        idOfPath.set(entry.path as string, id);
        return;
      }
    }
    pageIds.set(entry, idFor(previousByKey.get(entry.kind === 'group' ? `group\0${entry.slug}` : `link\0${entry.title}`)));
  });
  const fileIdOf = new Map<string, string>();
  const includeIdOf = new Map<string, string>();
  for (const path of files.keys()) {
    if (path.startsWith(`${ASSETS_DIR}/`)) fileIdOf.set(path, idFor(fileAt.get(path)));
    else if (path.startsWith(`${INCLUDES_DIR}/`) && path.endsWith('.md')) includeIdOf.set(path, idFor(includeAt.get(path)));
  }
  const includeIdByName = new Map([...includeIdOf].map(([path, id]) => [posix.basename(path, '.md'), id]));

  const rewrite = (markdown: string, from: string) => rewriteBody(markdown, from, { idOfPath, fileIdOf, includeIdByName });

  const pages: LayoutPage[] = [];
  const place = async (list: Entry[], parentId: string | null) => {
    const slugs = new Set<string>();
    for (const [position, entry] of list.entries()) {
      const pageId = pageIds.get(entry) as string;
      const kept = previousPages.get(pageId);
      if (entry.kind === 'link') {
        pages.push(blankPage(pageId, parentId, position, 'link', entry.title, null, { linkTarget: linkTarget(entry.linkTarget, idOfPath, fileIdOf) }));
      } else if (entry.kind === 'group') {
        pages.push(blankPage(pageId, parentId, position, 'group', entry.title, uniqueSlug(entry.slug || slugify(entry.title), slugs)));
      } else {
        const path = entry.path as string;
        const source = files.get(path);
        const parsed = source ? pageSource(utf8(source), path) : { matter: {}, title: undefined, body: '' };
        const fileSlug = posix.basename(posix.basename(path) === README ? posix.dirname(path) : path, '.md');
        const wanted = typeof parsed.matter.slug === 'string' ? parsed.matter.slug : path === files.config.readme ? undefined : fileSlug;
        const slug = uniqueSlug(wanted && SLUG.test(wanted) ? wanted : slugify(wanted ?? parsed.title ?? entry.title), slugs);
        pages.push({
          ...blankPage(pageId, parentId, position, 'document', parsed.title ?? entry.title, slug),
          ...pageFields(parsed.matter, path, fileIdOf, kept),
          markdown: rewrite(parsed.body, path),
        });
        if (pages.length % 50 === 0) await yieldToLoop();
      }
      await place(entry.children, pageId);
    }
  };
  await place(entries, null);

  const reusableContents: LayoutReusableContent[] = [];
  for (const [path, reusableContentId] of includeIdOf) {
    const parsed = pageSource(utf8(files.get(path) as Buffer), path, false);
    const title = typeof parsed.matter.title === 'string' ? parsed.matter.title : posix.basename(path, '.md');
    reusableContents.push({ reusableContentId, title, markdown: rewrite(parsed.body, path) });
  }
  const layoutFiles: LayoutFile[] = [...fileIdOf].map(([path, fileId]) => {
    const kept = previousFiles.get(fileId);
    const name = kept && before.assetFiles.get(fileId) === path ? kept.name : posix.basename(path);
    return { fileId, name, contentType: kept?.contentType ?? contentTypeOf(name), data: files.get(path) as Buffer };
  });
  const vars = files.get(VARS_FILE);
  return { pages, files: layoutFiles, reusableContents, variables: vars ? variablesOf(yamlOf(utf8(vars), VARS_FILE)) : {} };
}

type RepositoryFiles = Map<string, Buffer> & { config: { summary: string; readme: string } };

/** The files under `.gitbook.yaml`'s `root`, with paths relative to it, and where its summary and readme are. */
function withinRoot(repository: Map<string, Buffer>): RepositoryFiles {
  const configFile = repository.get(CONFIG_FILE);
  const config = configFile ? (yamlOf(utf8(configFile), CONFIG_FILE) as { root?: unknown; structure?: { summary?: unknown; readme?: unknown } } | null) : null;
  const root = typeof config?.root === 'string' ? posix.normalize(config.root).replace(/^\.\/?|\/$/g, '') : '';
  const files = new Map<string, Buffer>() as RepositoryFiles;
  for (const [path, data] of repository) {
    if (!root) files.set(path, data);
    else if (path.startsWith(`${root}/`)) files.set(path.slice(root.length + 1), data);
  }
  const named = (value: unknown, fallback: string) =>
    typeof value === 'string' && value.trim() ? posix.normalize(value.trim()).replace(/^\.\//, '') : fallback;
  files.config = { summary: named(config?.structure?.summary, SUMMARY), readme: named(config?.structure?.readme, README) };
  return files;
}

function yamlOf(text: string, path: string): unknown {
  try {
    return yaml().parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new LayoutError(`${path}: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** `SUMMARY.md`: `* [Title](path.md)` items nested by indentation, `## Title` sections as groups, other targets as links. */
export function parseSummary(text: string, summaryPath = SUMMARY): Entry[] {
  const top: Entry[] = [];
  let list = top;
  const stack: Entry[] = [];
  for (const line of text.split(/\r?\n/)) {
    const group = groupHeading(line);
    if (group) {
      const entry: Entry = { kind: 'group', title: group.title, depth: -1, slug: group.slug, children: [] };
      top.push(entry);
      list = entry.children;
      stack.length = 0;
      continue;
    }
    const item = /^(\s*)[*+-]\s+\[((?:\\.|[^\\\]])*)\]\((.*)\)\s*$/.exec(line);
    if (!item) continue;
    const depth = Math.floor(item[1].replace(/\t/g, '  ').length / 2);
    const title = item[2].replace(/\\(.)/g, '$1');
    const { href, label } = splitDestination(item[3]);
    const target = resolveRelative(summaryPath, href);
    const entry: Entry =
      label === undefined && target && !target.anchor && target.path.endsWith('.md')
        ? { kind: 'document', title, depth, path: target.path, children: [] }
        : { kind: 'link', title, depth, linkTarget: label && label !== 'link' ? parseJsonTarget(label) : { kind: 'url', url: href }, children: [] };
    while (stack.length > 0 && stack[stack.length - 1].depth >= depth) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].children : list).push(entry);
    if (entry.kind === 'document') stack.push(entry);
  }
  return top;
}

/** `## Title <a href="#slug" id="slug"></a>` (the anchor as GitBook writes it, optional). */
function groupHeading(line: string): { title: string; slug?: string } | null {
  if (!line.startsWith('## ')) return null;
  let title = line.slice(3).trim();
  let slug: string | undefined;
  const anchor = title.lastIndexOf('<a href="#');
  if (anchor >= 0 && title.endsWith('</a>')) {
    const value = title.slice(anchor + '<a href="#'.length);
    slug = value.slice(0, value.indexOf('"')) || undefined;
    title = title.slice(0, anchor).trim();
  }
  return { title, slug };
}

/** `href`, `<href with spaces>` and an optional `"title"` after it. */
function splitDestination(raw: string): { href: string; label?: string } {
  let rest = raw.trim();
  let href: string;
  if (rest.startsWith('<')) {
    const end = rest.indexOf('>');
    href = rest.slice(1, end < 0 ? undefined : end).replace(/\\([<>\\])/g, '$1');
    rest = end < 0 ? '' : rest.slice(end + 1).trim();
  } else {
    const space = rest.search(/\s/);
    href = space < 0 ? rest : rest.slice(0, space);
    rest = space < 0 ? '' : rest.slice(space).trim();
  }
  const label = /^"((?:\\.|[^"\\])*)"$/.exec(rest)?.[1]?.replace(/\\(.)/g, '$1');
  return { href, label };
}

function parseJsonTarget(label: string): Record<string, string> {
  try {
    const value = JSON.parse(label) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, string>;
  } catch {
    // Not a target written by an export: the title is only a title.
  }
  return { kind: 'url', url: '' };
}

/** A link item's target: a relative path to a page or an asset becomes a ref to it. */
function linkTarget(target: Record<string, string> | undefined, idOfPath: Map<string, string>, fileIdOf: Map<string, string>): Record<string, string> {
  if (!target) return { kind: 'url', url: '' };
  if (target.kind !== 'url') return target;
  const resolved = resolveRelative(SUMMARY, target.url);
  const page = resolved && idOfPath.get(resolved.path);
  if (page) return resolved.anchor ? { kind: 'anchor', page, anchor: resolved.anchor } : { kind: 'page', page };
  const file = resolved && fileIdOf.get(resolved.path);
  return file ? { kind: 'file', file } : target;
}

/** A page file: its front matter, its `# Title` line and the body after it. */
function pageSource(text: string, path: string, titled = true): { matter: Record<string, unknown>; title?: string; body: string } {
  let rest = text.replace(/^\uFEFF/, '');
  let matter: Record<string, unknown> = {};
  const fence = /^---\r?\n/.exec(rest);
  if (fence) {
    const end = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(rest.slice(fence[0].length - 1));
    if (end) {
      const yaml = rest.slice(fence[0].length, fence[0].length - 1 + end.index);
      const value = yamlOf(yaml, path);
      if (value && typeof value === 'object' && !Array.isArray(value)) matter = value as Record<string, unknown>;
      rest = rest.slice(fence[0].length - 1 + end.index + end[0].length);
    }
  }
  rest = rest.replace(BLANK_LINES, '');
  if (titled) {
    const heading = /^# (.*)(?:\r?\n|$)/.exec(rest);
    if (heading) return { matter, title: heading[1].trim(), body: rest.slice(heading[0].length).replace(BLANK_LINES, '') };
  }
  return { matter, body: rest };
}

/** Front matter → page settings; a cover's relative path → the asset's file. */
function pageFields(matter: Record<string, unknown>, from: string, fileIdOf: Map<string, string>, kept: LayoutPage | undefined): Partial<LayoutPage> {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const fields: Partial<LayoutPage> = {
    description: text(matter.description),
    icon: text(matter.icon),
    emoji: text(matter.emoji),
    hidden: matter.hidden === true,
    noIndex: matter.noIndex === true,
    noRobotsIndex: matter.noRobotsIndex === true,
    variables: variablesOf(matter.variables),
    layout: layoutOf(matter.layout),
  };
  if ('cover' in matter || 'coverDark' in matter || 'coverY' in matter) {
    const ref = (value: unknown): PageCover['ref'] => {
      if (typeof value !== 'string' || !value) return undefined;
      const resolved = resolveRelative(from, value);
      const file = resolved && fileIdOf.get(resolved.path);
      return file ? { kind: 'file', file } : { kind: 'url', url: value };
    };
    const cover: PageCover = { yPos: typeof matter.coverY === 'number' ? matter.coverY : 0 };
    if (ref(matter.cover)) cover.ref = ref(matter.cover);
    if (ref(matter.coverDark)) cover.refDark = ref(matter.coverDark);
    fields.cover = cover;
  }
  // What the layout does not carry stays as it was on a page that kept its file.
  if (kept) fields.linkTarget = kept.linkTarget;
  return fields;
}

function layoutOf(value: unknown): PageLayout | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const matter = value as Record<string, { visible?: unknown; size?: unknown } | unknown>;
  const layout: PageLayout = {};
  if (matter.width === 'default' || matter.width === 'wide') layout.width = matter.width;
  const cover = matter.cover as { visible?: unknown; size?: unknown } | undefined;
  if (typeof cover?.visible === 'boolean') layout.cover = cover.visible;
  if (cover?.size === 'hero' || cover?.size === 'full' || cover?.size === 'background') layout.coverSize = cover.size;
  for (const name of ['title', 'description', 'tableOfContents', 'outline', 'pagination'] as const) {
    const visible = (matter[name] as { visible?: unknown } | undefined)?.visible;
    if (typeof visible === 'boolean') layout[name] = visible;
  }
  return layout;
}

function variablesOf(value: unknown): Record<string, string | number | boolean> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string | number | boolean> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') out[name] = item;
  }
  return out;
}

function blankPage(
  pageId: string,
  parentId: string | null,
  position: number,
  kind: LayoutPage['kind'],
  title: string,
  slug: string | null,
  extra: Partial<LayoutPage> = {},
): LayoutPage {
  return {
    pageId,
    parentId,
    position,
    kind,
    title,
    emoji: null,
    icon: null,
    slug,
    description: null,
    layout: null,
    cover: null,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    linkTarget: null,
    markdown: '',
    ...extra,
  };
}

/**
 * A body of the repository → a stored body: relative links to pages, assets and includes become
 * `/pages/ID`, `/files/ID` and the reusable content's id; everything else is kept.
 */
function rewriteBody(
  markdown: string,
  from: string,
  ids: { idOfPath: Map<string, string>; fileIdOf: Map<string, string>; includeIdByName: Map<string, string> },
): string {
  if (!markdown.trim()) return '';
  // Without a link, an image, a tag with a source or a reference definition, there is nothing to rewrite.
  if (!MAY_HAVE_REFS.test(markdown)) return markdown;
  const document = markdownToDocument(markdown);
  eachRef(document, (ref, node): Record<string, string> | undefined => {
    if (ref.kind === 'reusable-content') {
      const id = ids.includeIdByName.get(ref.reusableContent);
      return id ? { ...ref, reusableContent: id } : undefined;
    }
    // `{% file src="../.gitbook/assets/x.pdf" %}` reads as a file ref whose id is the path.
    const href = ref.kind === 'url' ? ref.url : ref.kind === 'file' && node.type === 'file' && !/^[\w-]+$/.test(ref.file) ? ref.file : undefined;
    if (href === undefined) return undefined;
    const target = resolveRelative(from, href);
    if (!target) return undefined;
    const page = ids.idOfPath.get(target.path) ?? ids.idOfPath.get(target.path.replace(/\/$/, '') + '/README.md');
    if (page && node.type !== 'image' && node.type !== 'inline-image' && node.type !== 'file') {
      return target.anchor ? { kind: 'anchor', page, anchor: target.anchor } : { kind: 'page', page };
    }
    const file = ids.fileIdOf.get(target.path);
    return file && !target.anchor ? { kind: 'file', file } : undefined;
  });
  return documentToMarkdown(document);
}

const BLANK_LINES = /^(?:[ \t]*\r?\n)+/;
const MAY_HAVE_REFS = /\]\(|\]:|src=|href=|url=|\{%-?\s*include|</;

function invert(map: Map<string, string>): Map<string, string> {
  return new Map([...map].map(([id, path]) => [path, id]));
}
