import { fileRef as storedFileRef, pageRef as storedPageRef } from '../markdown/markdown';
import { encodeAttr } from './dialect-scan';
import { DocChild, DocFragment, DocLeaf, DocMark, DocNode, DocText, JsonDocument, NodeData } from './document.types';
import { textOf } from './to-document';

/**
 * The public `JSONDocument` → GitBook's Markdown dialect, such that `markdownToDocument` gives the
 * same document back (up to keys). A node the dialect cannot say (a drawing, a prompt, updates, an
 * integration, a table with other than text columns, a paragraph with an alignment…) is written as
 * its JSON: `{% document-node %}` around a fenced `json` block, or `<span data-gb-node="…">` inline.
 */
export function documentToMarkdown(document: Pick<JsonDocument, 'nodes'>, options: { refs?: MarkdownRefs } = {}): string {
  refs = options.refs ?? STORED_REFS;
  try {
    const body = blocks(document.nodes ?? []);
    return body ? `${body}\n` : '';
  } finally {
    refs = STORED_REFS;
  }
}

/**
 * How refs to the space's own pages, files and reusable contents are written. Stored bodies say
 * `/pages/ID`, `/files/ID` and `.gitbook/includes/ID.md`; an export (Git Sync layout) writes paths
 * relative to the file instead. Ids stay `[\w-]+` either way: only the written form changes.
 */
export interface MarkdownRefs {
  page(pageId: string, anchor?: string): string;
  file(fileId: string): string;
  include(reusableContentId: string): string;
}

const STORED_REFS: MarkdownRefs = { page: storedPageRef, file: storedFileRef, include: (id) => `.gitbook/includes/${id}.md` };
// The writer is synchronous and not re-entrant, so the refs of the call under way can live here.
let refs = STORED_REFS;
const pageRef = (pageId: string, anchor?: string) => refs.page(pageId, anchor);
const fileRef = (fileId: string) => refs.file(fileId);

type Data = NodeData;

/** Data fields each block type can carry in the dialect; any other field keeps the node as JSON. */
const DATA_FIELDS: Record<string, string[]> = {
  paragraph: [],
  'heading-1': ['id'],
  'heading-2': ['id'],
  'heading-3': ['id'],
  'list-ordered': ['start'],
  'list-unordered': [],
  'list-tasks': [],
  'list-item': ['checked'],
  blockquote: [],
  divider: [],
  code: ['syntax', 'title', 'overflow', 'lineNumbers', 'fullWidth', 'expandable', 'collapsedLineCount'],
  hint: ['style', 'icon'],
  tabs: [],
  'tabs-item': ['title', 'icon'],
  stepper: [],
  'stepper-step': ['icon'],
  columns: ['fullWidth'],
  column: ['width', 'verticalAlignment'],
  if: ['expression'],
  expandable: ['defaultExpanded'],
  images: [],
  image: ['ref', 'alt', 'width', 'height'],
  file: ['ref'],
  embed: ['url', 'fullWidth'],
  'content-ref': ['ref'],
  math: ['formula'],
  'reusable-content': ['ref'],
  swagger: ['ref', 'path', 'method', 'expanded', 'fullWidth'],
  'openapi-operation': ['ref', 'path', 'method'],
  'openapi-schemas': ['ref', 'schemas', 'grouped', 'title'],
  'openapi-webhook': ['ref', 'name', 'method'],
  table: ['view', 'records', 'definition'],
};

function fitsDialect(node: DocNode): boolean {
  const fields = DATA_FIELDS[node.type];
  if (!fields) return false;
  return Object.entries(node.data ?? {}).every(([name, value]) => value === undefined || fields.includes(name));
}

function blocks(nodes: DocNode[]): string {
  const out: string[] = [];
  let previous: DocNode | undefined;
  let alternate = false;
  for (const node of nodes) {
    // Two lists of the same kind in a row would read as one: the second uses the other marker.
    alternate = previous !== undefined && listFamily(previous) !== undefined && listFamily(previous) === listFamily(node) ? !alternate : false;
    out.push(block(node, alternate));
    previous = node;
  }
  return out.join('\n\n');
}

/** Bulleted (unordered and task) lists share markers; ordered ones have their own. */
function listFamily(node: DocNode): string | undefined {
  if (node.type === 'list-ordered') return 'ordered';
  return node.type === 'list-unordered' || node.type === 'list-tasks' ? 'bullet' : undefined;
}

function block(node: DocNode, alternate = false): string {
  const written = fitsDialect(node) ? dialectBlock(node, alternate) : undefined;
  return written ?? storedBlock(node);
}

/** A node as its JSON, for what the dialect cannot say. */
function storedBlock(node: DocNode): string {
  const json = JSON.stringify(withoutKeys(node));
  return `{% document-node %}\n\`\`\`json\n${json}\n\`\`\`\n{% enddocument-node %}`;
}

function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value)) if (name !== 'key') out[name] = withoutKeys(child);
  return out;
}

const attr = (name: string, value: unknown) => (value === undefined ? '' : ` ${name}="${encodeAttr(String(value))}"`);
const tagLine = (name: string, attrs = '') => `{% ${name}${attrs} %}`;
const children = (node: DocNode) => (node.nodes ?? []) as DocNode[];

function wrap(open: string, body: string, close: string): string {
  return body ? `${open}\n${body}\n${close}` : `${open}\n${close}`;
}

function dialectBlock(node: DocNode, alternate: boolean): string | undefined {
  const data: Data = node.data ?? {};
  switch (node.type) {
    case 'paragraph': {
      const text = inlines(node.nodes ?? []);
      return text === undefined ? undefined : text || '&#x20;';
    }
    case 'heading-1':
    case 'heading-2':
    case 'heading-3': {
      const text = inlines(node.nodes ?? []);
      if (text === undefined || text.includes('\n')) return undefined;
      return `${'#'.repeat(Number(node.type.slice(-1)))} ${text}`.trimEnd();
    }
    case 'list-unordered':
    case 'list-tasks':
    case 'list-ordered':
      return list(node, alternate);
    case 'blockquote': {
      const body = blocks(children(node));
      return body
        .split('\n')
        .map((line) => (line ? `> ${line}` : '>'))
        .join('\n');
    }
    case 'divider':
      return '***';
    case 'code':
      return code(node);
    case 'hint':
      if (!['info', 'warning', 'danger', 'success'].includes(data.style)) return undefined;
      return wrap(tagLine('hint', attr('style', data.style) + attr('icon', data.icon)), blocks(children(node)), tagLine('endhint'));
    case 'tabs':
    case 'stepper':
    case 'columns': {
      const item = { tabs: 'tabs-item', stepper: 'stepper-step', columns: 'column' }[node.type];
      if (children(node).some((child) => child.type !== item || !fitsDialect(child))) return undefined;
      const items = children(node).map((child) => itemBlock(child));
      if (items.some((text) => text === undefined)) return undefined;
      return wrap(tagLine(node.type, attr('fullWidth', data.fullWidth)), items.join('\n'), tagLine(`end${node.type}`));
    }
    case 'if':
      if (typeof data.expression !== 'string' || !oneLine(data.expression) || data.expression.includes('%}') || !data.expression.trim()) return undefined;
      if (data.expression !== data.expression.trim()) return undefined;
      return wrap(`{% if ${data.expression} %}`, blocks(children(node)), tagLine('endif'));
    case 'expandable':
      return expandable(node);
    case 'images':
      return images(node);
    case 'table':
      return table(node);
    case 'math':
      if (typeof data.formula !== 'string' || data.formula.split('\n').some((line: string) => line.trim() === '$$')) return undefined;
      return `$$\n${data.formula}\n$$`;
    case 'embed':
      return typeof data.url === 'string' && oneLine(data.url) ? tagLine('embed', attr('url', data.url) + attr('fullWidth', data.fullWidth)) : undefined;
    case 'file':
      return data.ref?.kind === 'file' && !data.ref.space && refId(data.ref.file) ? tagLine('file', attr('src', fileRef(data.ref.file))) : undefined;
    case 'content-ref': {
      const href = hrefOf(data.ref);
      return href === undefined
        ? undefined
        : `${tagLine('content-ref', attr('url', href))}\n[${escapeText(href, true, true)}](${destination(href)})\n${tagLine('endcontent-ref')}`;
    }
    case 'reusable-content': {
      const id = data.ref?.reusableContent;
      if (data.ref?.space || typeof id !== 'string' || !id || !safeName(id)) return undefined;
      return `{% include "${refs.include(id)}" %}`;
    }
    case 'swagger': {
      const src = sourceOf(data.ref);
      if (!src || typeof data.path !== 'string' || typeof data.method !== 'string') return undefined;
      return tagLine(
        'openapi',
        attr('src', src) + attr('path', data.path) + attr('method', data.method) + attr('expanded', data.expanded) + attr('fullWidth', data.fullWidth),
      );
    }
    case 'openapi-operation':
    case 'openapi-webhook': {
      if (data.ref?.kind !== 'openapi' || !data.ref.spec || typeof data.method !== 'string') return undefined;
      const where = node.type === 'openapi-operation' ? attr('path', data.path) : attr('name', data.name);
      if (typeof (data.path ?? data.name) !== 'string') return undefined;
      return tagLine(node.type, attr('spec', data.ref.spec) + where + attr('method', data.method));
    }
    case 'openapi-schemas': {
      const schemas: unknown[] = Array.isArray(data.schemas) ? data.schemas : [];
      if (
        data.ref?.kind !== 'openapi' ||
        !data.ref.spec ||
        schemas.some((name) => typeof name !== 'string' || !name.trim() || name.includes(',') || name !== name.trim())
      )
        return undefined;
      return tagLine(
        'openapi-schemas',
        attr('spec', data.ref.spec) + attr('schemas', schemas.join(',')) + attr('grouped', data.grouped) + attr('title', data.title),
      );
    }
    default:
      return undefined;
  }
}

function itemBlock(node: DocNode): string | undefined {
  const data: Data = node.data ?? {};
  const body = blocks(children(node));
  switch (node.type) {
    case 'tabs-item':
      return wrap(tagLine('tab', attr('title', data.title ?? '') + attr('icon', data.icon)), body, tagLine('endtab'));
    case 'stepper-step':
      return wrap(tagLine('step', attr('icon', data.icon)), body, tagLine('endstep'));
    case 'column': {
      let width: string | undefined;
      if (typeof data.width === 'number') width = String(data.width);
      else if (data.width && data.width.unit === '%' && typeof data.width.value === 'number') width = `${data.width.value}%`;
      else if (data.width !== undefined) return undefined;
      return wrap(tagLine('column', attr('width', width) + attr('valign', data.verticalAlignment)), body, tagLine('endcolumn'));
    }
  }
  return undefined;
}

function list(node: DocNode, alternate: boolean): string | undefined {
  const items = children(node);
  const ordered = node.type === 'list-ordered';
  const tasks = node.type === 'list-tasks';
  const start = ordered ? Number((node.data ?? {}).start ?? 1) : 1;
  if (!Number.isInteger(start) || start < 0 || start > 99999999) return undefined;
  const out: string[] = [];
  for (const [index, item] of items.entries()) {
    if (item.type !== 'list-item' || !fitsDialect(item)) return undefined;
    const first = children(item)[0];
    let marker = ordered ? `${start + index}${alternate ? ')' : '.'}` : alternate ? '*' : '-';
    if (tasks) {
      // The check box sits before the item's first paragraph.
      if (first?.type !== 'paragraph' || !fitsDialect(first)) return undefined;
      marker += item.data?.checked ? ' [x]' : ' [ ]';
    }
    const body = blocks(children(item));
    const indent = ' '.repeat((ordered ? marker.length : 1) + 1);
    const lines = body.split('\n');
    // A tag line cannot follow the marker: it starts on the next line, indented.
    const ownLine = ['{%', '$$', '<details', '<figure'].some((start) => lines[0].startsWith(start));
    const rest = (ownLine ? lines : lines.slice(1)).map((line) => (line ? indent + line : line));
    out.push([ownLine ? marker : `${marker} ${lines[0]}`.trimEnd(), ...rest].join('\n'));
  }
  // Items apart from each other by a blank line when any holds more than one block (a loose list).
  return out.join(items.some((item) => children(item).length > 1) ? '\n\n' : '\n');
}

function code(node: DocNode): string | undefined {
  const data: Data = node.data ?? {};
  const lines: string[] = [];
  for (const line of children(node)) {
    if (line.type !== 'code-line' || Object.keys(line.data ?? {}).some((name) => (line.data ?? {})[name] !== undefined)) return undefined;
    if ((line.nodes ?? []).some((child) => child.object !== 'text')) return undefined;
    const text = textOf(line);
    if (text.includes('\n')) return undefined;
    lines.push(text);
  }
  const syntax = data.syntax ?? '';
  if (typeof syntax !== 'string' || !/^[^\s`]*$/.test(syntax)) return undefined;
  let longest = 0;
  for (const line of lines) {
    let run = 0;
    for (const char of line) {
      run = char === '`' ? run + 1 : 0;
      if (run > longest) longest = run;
    }
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = `${fence}${syntax}\n${lines.join('\n')}${lines.length ? '\n' : ''}${fence}`;
  const extra =
    attr('title', data.title) +
    attr('overflow', data.overflow) +
    attr('lineNumbers', data.lineNumbers) +
    attr('fullWidth', data.fullWidth) +
    attr('expandable', data.expandable) +
    attr('collapsedLineCount', data.collapsedLineCount);
  return extra ? `${tagLine('code', extra)}\n${body}\n${tagLine('endcode')}` : body;
}

function expandable(node: DocNode): string | undefined {
  const fragments = node.fragments ?? [];
  const title = fragments.find((fragment) => fragment.fragment === 'expandable-title');
  const body = fragments.find((fragment) => fragment.fragment === 'expandable-body');
  if (fragments.length !== 2 || !title || !body || title.nodes.length !== 1 || !fitsDialect(title.nodes[0]) || title.nodes[0].type !== 'paragraph')
    return undefined;
  const summary = inlines(title.nodes[0].nodes ?? []);
  if (summary === undefined || summary.includes('\n')) return undefined;
  const open = node.data?.defaultExpanded ? '<details open>' : '<details>';
  return `${open}\n\n<summary>${summary}</summary>\n\n${blocks(body.nodes)}\n\n</details>`;
}

function images(node: DocNode): string | undefined {
  const lines: string[] = [];
  for (const image of children(node)) {
    if (image.type !== 'image' || !fitsDialect(image)) return undefined;
    const data: Data = image.data ?? {};
    const src = sourceOf(data.ref);
    if (src === undefined) return undefined;
    const width = length(data.width);
    const height = length(data.height);
    if (width === null || height === null) return undefined;
    const fragments = image.fragments ?? [];
    let caption = '';
    if (fragments.length > 0) {
      const paragraph = fragments[0].nodes[0];
      if (
        fragments.length > 1 ||
        fragments[0].fragment !== 'caption' ||
        fragments[0].nodes.length !== 1 ||
        paragraph.type !== 'paragraph' ||
        !fitsDialect(paragraph)
      )
        return undefined;
      const text = inlines(paragraph.nodes ?? []);
      if (text === undefined || text.includes('\n')) return undefined;
      caption = `<figcaption><p>${text}</p></figcaption>`;
    }
    lines.push(`<figure><img src="${encodeAttr(src)}" alt="${encodeAttr(data.alt ?? '')}"${attr('width', width)}${attr('height', height)}>${caption}</figure>`);
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** A Length as an attribute: `320`, `50%`; undefined when absent, null when the dialect cannot say it. */
function length(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  const object = value as { unit?: unknown; value?: unknown };
  return object && object.unit === '%' && typeof object.value === 'number' ? `${object.value}%` : null;
}

/** A grid of text columns whose cells are one paragraph each: a pipe table. */
function table(node: DocNode): string | undefined {
  const data: Data = node.data ?? {};
  const view = data.view;
  if (!view || view.type !== 'grid' || view.hideHeader || Object.keys(view).some((name) => !['type', 'columns', 'hideHeader'].includes(name))) return undefined;
  const columns: string[] = view.columns ?? [];
  const definitions = columns.map((id) => data.definition?.[id]);
  if (columns.length === 0 || definitions.some((definition) => !definition || definition.type !== 'text' || definition.verticalAlignment !== undefined))
    return undefined;
  if (Object.keys(data.definition ?? {}).length !== columns.length) return undefined;
  const fragments = new Map<string, DocFragment>((node.fragments ?? []).map((fragment) => [fragment.fragment, fragment]));
  const records = Object.values((data.records ?? {}) as Record<string, { orderIndex: string; values: Record<string, unknown> }>).sort((a, b) =>
    a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0,
  );
  const header = definitions.map((definition) => {
    const title = String(definition.title ?? '');
    return oneLine(title) && title === title.trim() ? escapeText(title, true, true) : undefined;
  });
  if (header.some((title) => title === undefined)) return undefined;
  const align = definitions.map((definition) => ({ center: ':-:', right: '--:' })[definition.textAlignment as string] ?? '---');
  const rows: string[] = [];
  tableCell = true;
  try {
    return tableRows(records, columns, fragments, header, align, rows);
  } finally {
    tableCell = false;
  }
}

/** Whether inlines are being written in a table cell, where a pipe in code must be escaped too. */
let tableCell = false;

function tableRows(
  records: { orderIndex: string; values: Record<string, unknown> }[],
  columns: string[],
  fragments: Map<string, DocFragment>,
  header: (string | undefined)[],
  align: string[],
  rows: string[],
): string | undefined {
  const cell = (text: string) => text.split('\n').join(' ');
  for (const record of records) {
    const cells: string[] = [];
    for (const column of columns) {
      const id = record.values?.[column];
      if (typeof id !== 'string') return undefined;
      const fragment = fragments.get(id);
      const paragraph = fragment?.nodes[0];
      if (!fragment || fragment.nodes.length !== 1 || paragraph?.type !== 'paragraph' || !fitsDialect(paragraph)) return undefined;
      const text = inlines(paragraph.nodes ?? []);
      if (text === undefined || text.includes('\n')) return undefined;
      cells.push(cell(text));
    }
    if (Object.keys(record.values ?? {}).length !== columns.length) return undefined;
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return [`| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows].join('\n');
}

// ---- inlines -----------------------------------------------------------------------------------

type Piece = { leaf: DocLeaf } | { inline: DocNode };

const DELIMITED = new Set(['bold', 'italic', 'strikethrough']);

/** A paragraph's nodes as one line of the dialect (with `\n` where the text breaks lines). */
export function inlines(nodes: DocChild[], paragraph = true): string | undefined {
  const pieces: Piece[] = [];
  for (const node of nodes) {
    if (node.object === 'text') {
      for (const leaf of (node as DocText).leaves ?? []) {
        if (!leaf.text) continue;
        const last = pieces[pieces.length - 1];
        if (last && 'leaf' in last && sameMarks(last.leaf.marks, leaf.marks)) last.leaf = { ...last.leaf, text: last.leaf.text + leaf.text };
        else pieces.push({ leaf });
      }
    } else pieces.push({ inline: node as DocNode });
  }
  // A paragraph of images alone would read back as an images block.
  if (paragraph && pieces.length > 0 && pieces.every((piece) => 'inline' in piece && piece.inline.type === 'inline-image')) return undefined;
  // Parts joined once at the end: reading the end of a growing string (`endsWith`) flattens it each time.
  const parts: string[] = [];
  let atLineStart = true;
  pieces.forEach((piece, index) => {
    const atEnd = index === pieces.length - 1;
    let part: string;
    if ('inline' in piece) part = inline(piece.inline);
    else {
      const delimitedNeighbour = [pieces[index - 1], pieces[index + 1]].some(
        (other) => other && 'leaf' in other && other.leaf.marks.some((mark) => DELIMITED.has(mark.type)),
      );
      part = leafText(piece.leaf, atLineStart, atEnd, delimitedNeighbour);
    }
    parts.push(part);
    if (part) atLineStart = part[part.length - 1] === '\n';
  });
  return parts.join('');
}

function sameMarks(a: DocMark[], b: DocMark[]): boolean {
  const key = (marks: DocMark[]) =>
    marks
      .map((mark) => `${mark.type}:${mark.data ? `${mark.data.text}/${mark.data.background}` : ''}`)
      .sort()
      .join(',');
  return key(a) === key(b);
}

function leafText(leaf: DocLeaf, atLineStart: boolean, atEnd: boolean, delimitedNeighbour: boolean): string {
  const has = (type: string) => leaf.marks.some((mark) => mark.type === type);
  let text = has('code') ? codeSpan(leaf.text) : escapeText(leaf.text, atLineStart, atEnd);
  const word = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);
  // Markdown's delimiters only where they cannot be misread: around words, away from other delimited text.
  const plain = () => word(text[0]) && word(text[text.length - 1]) && !delimitedNeighbour;
  if (has('italic')) text = plain() ? `*${text}*` : `<em>${text}</em>`;
  if (has('bold')) text = plain() ? `**${text}**` : `<strong>${text}</strong>`;
  if (has('strikethrough')) text = plain() ? `~~${text}~~` : `<s>${text}</s>`;
  if (has('keyboard')) text = `<kbd>${text}</kbd>`;
  if (has('superscript')) text = `<sup>${text}</sup>`;
  if (has('subscript')) text = `<sub>${text}</sub>`;
  const color = leaf.marks.find((mark) => mark.type === 'color');
  if (color) {
    const style = [
      color.data?.text && color.data.text !== 'default' ? `color:${color.data.text};` : '',
      color.data?.background && color.data.background !== 'default' ? `background-color:${color.data.background};` : '',
    ].join('');
    text = `<mark style="${style}">${text}</mark>`;
  }
  return text;
}

function codeSpan(text: string): string {
  let flat = text.split('\n').join(' ');
  let longest = 0;
  let run = 0;
  for (const char of flat) {
    run = char === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const ticks = '`'.repeat(longest + 1);
  if (tableCell) flat = flat.split('|').join('\\|');
  // markdown-it strips one space at each end of `  …  ` (even when all spaces): padded, they survive.
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.length >= 2 && flat.startsWith(' ') && flat.endsWith(' '));
  return pad ? `${ticks} ${flat} ${ticks}` : `${ticks}${flat}${ticks}`;
}

const ALWAYS = new Set(['\\', '`', '*', '_', '[', ']', '<', '>', '~', '$', '|', '&', '#', '!']);
const AT_LINE_START = new Set(['=', '+', '-']);

/**
 * Text as the dialect reads it back verbatim: Markdown's punctuation escaped with `\`, block
 * markers escaped at the start of a line, and spaces at the edges of a line as `&#32;` (Markdown
 * strips them).
 */
export function escapeText(text: string, atLineStart: boolean, atEnd: boolean): string {
  let out = '';
  let lineStart = atLineStart;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\n') {
      // An empty line would end the paragraph: a hard break (`\` alone) keeps it.
      out += lineStart ? '\\\n' : '\n';
      lineStart = true;
      continue;
    }
    const edge = lineStart || text[i + 1] === '\n' || (atEnd && i === text.length - 1);
    if ((char === ' ' || char === '\t') && edge) out += char === ' ' ? '&#32;' : '&#9;';
    else if (ALWAYS.has(char) || (char === '{' && text[i + 1] === '%') || (lineStart && AT_LINE_START.has(char))) out += `\\${char}`;
    else if (lineStart && char >= '0' && char <= '9') {
      let end = i;
      while (end < text.length && text[end] >= '0' && text[end] <= '9') end++;
      out += text.slice(i, end);
      i = end - 1;
      if (text[end] === '.' || text[end] === ')') {
        out += `\\${text[end]}`;
        i = end;
      }
    } else out += char;
    lineStart = false;
  }
  return out;
}

const oneLine = (value: unknown) => typeof value === 'string' && !value.includes('\n');
/** Ids that `/pages/ID` and `/files/ID` refs can carry (see PAGE_REF, FILE_REF). */
const refId = (value: unknown): value is string => typeof value === 'string' && /^[\w-]+$/.test(value);
/** The `src` of an image or OpenAPI block: `/files/ID` or a URL. */
function sourceOf(ref: Data | undefined): string | undefined {
  if (ref?.kind === 'file' && !ref.space && refId(ref.file)) return fileRef(ref.file);
  if (ref?.kind === 'url' && typeof ref.url === 'string' && ref.url && oneLine(ref.url) && !ref.url.startsWith('/files/')) return ref.url;
  return undefined;
}
const safeName = (value: string) => !value.includes('"') && !value.includes('/') && oneLine(value);

/** The href of a ref the dialect can link to; undefined for refs it cannot say. */
function hrefOf(ref: Data | undefined): string | undefined {
  if (!ref || ref.space) return undefined;
  let href: string | undefined;
  if (ref.kind === 'url' && typeof ref.url === 'string') href = ref.url;
  else if (ref.kind === 'page' && refId(ref.page)) href = pageRef(ref.page);
  else if (ref.kind === 'anchor' && typeof ref.anchor === 'string' && ref.anchor && (ref.page === undefined || refId(ref.page)))
    href = ref.page ? pageRef(ref.page, ref.anchor) : `#${ref.anchor}`;
  else if (ref.kind === 'file' && refId(ref.file)) href = fileRef(ref.file);
  if (href === undefined || !oneLine(href) || href.includes('<') || href.includes('>')) return undefined;
  // A URL that reads as another kind of ref (`/pages/…`) cannot stay a URL.
  if (ref.kind === 'url' && (href.startsWith('/pages/') || href.startsWith('/files/') || href.startsWith('#'))) return undefined;
  return href;
}

/** A link destination: `<…>` around one with spaces, `\` before what Markdown would read. */
function destination(href: string): string {
  let out = '';
  for (const char of href) out += '\\()&<>|'.includes(char) ? `\\${char}` : char;
  return out.includes(' ') || out === '' ? `<${out}>` : out;
}

function inline(node: DocNode): string {
  const data: Data = node.data ?? {};
  const keys = Object.keys(data).filter((name) => data[name] !== undefined);
  const only = (...names: string[]) => keys.every((name) => names.includes(name));
  switch (node.type) {
    case 'link': {
      const href = hrefOf(data.ref);
      const label = (node.nodes ?? []).every((child) => child.object === 'text' || (child as DocNode).type === 'inline-image')
        ? linkLabel(node.nodes ?? [])
        : undefined;
      if (href !== undefined && label !== undefined && only('ref')) return `[${label}](${destination(href)})`;
      break;
    }
    case 'inline-image': {
      const src = sourceOf(data.ref);
      if (src !== undefined && !src.includes('<') && !src.includes('>') && only('ref', 'alt') && oneLine(data.alt ?? ''))
        return `![${escapeText(String(data.alt ?? '').trim(), false, false)}](${destination(src)})`;
      break;
    }
    case 'inline-math':
      if (
        typeof data.formula === 'string' &&
        data.formula &&
        oneLine(data.formula) &&
        !data.formula.includes('$') &&
        !(tableCell && data.formula.includes('|')) &&
        only('formula')
      )
        return `$$${data.formula}$$`;
      break;
    case 'expression':
      if (typeof data.expression === 'string' && oneLine(data.expression) && only('expression'))
        return `<code class="expression">${encodeAttr(data.expression)}</code>`;
      break;
    case 'emoji':
      if (typeof data.code === 'string' && only('code') && /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/i.test(data.code)) {
        const char = data.code
          .split('-')
          .map((part: string) => String.fromCodePoint(Math.min(parseInt(part, 16), 0x10ffff)))
          .join('');
        return `<span data-gb-custom-inline data-tag="emoji" data-code="${data.code}">${char}</span>`;
      }
      break;
    case 'icon':
      if (typeof data.icon === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(data.icon) && only('icon')) return `<i class="fa-${data.icon}">:${data.icon}:</i>`;
      break;
    case 'button': {
      const href = hrefOf(data.ref);
      if (
        href !== undefined &&
        typeof data.label === 'string' &&
        oneLine(data.label) &&
        ['primary', 'secondary'].includes(data.kind) &&
        only('label', 'kind', 'ref', 'icon')
      )
        return `<a href="${encodeAttr(href)}" class="button ${data.kind}"${attr('data-icon', data.icon)}>${encodeAttr(data.label)}</a>`;
      break;
    }
  }
  return `<span data-gb-node="${encodeAttr(JSON.stringify(withoutKeys(node)))}">${escapeText(textOf(node).split('\n').join(' ').trim(), false, false)}</span>`;
}

function linkLabel(nodes: DocChild[]): string | undefined {
  const text = inlines(nodes, false);
  return text;
}
