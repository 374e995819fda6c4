import { FILE_REF, inlineText, PAGE_REF } from '../markdown/markdown';
import { slugify } from '../tree/slugs';
import { decodeAttr, firstQuoted, LiquidTag } from './dialect-scan';
import { ElementKind, FigureMeta, GitbookTagMeta, parseDialect, Token } from './dialect-parser';
import { ALLOWED, DocChild, DocFragment, DocLeaf, DocMark, DocNode, DocText, JsonDocument, MARK_ORDER, MarkType } from './document.types';

/**
 * GitBook's Markdown dialect → the public `JSONDocument`. One pass over markdown-it's tokens
 * (closing tokens are paired once, up front). Keys are numbered in document order, so the same
 * text always gives the same keys; headings get their anchor in `meta.id` (the slug of their text,
 * numbered on repeats, as links and search sections use it). Whatever the schema does not allow
 * where it stands (a code block in a quote, an embed in a list) degrades to paragraphs of its text,
 * so the document is always valid against the public schema.
 */
export function markdownToDocument(markdown: string): JsonDocument {
  const tokens = parseDialect(markdown);
  const ctx = new Context(tokens);
  return { object: 'document', data: {}, nodes: ctx.fit(ctx.blocks(0, tokens.length), ALLOWED.document) };
}

type Allowed = Set<string>;

class Context {
  private counter = 0;
  private readonly anchors = new Map<string, number>();
  /** Index of the closing token of every opening token. */
  private readonly closeOf: Int32Array;

  constructor(private readonly tokens: Token[]) {
    this.closeOf = new Int32Array(tokens.length).fill(-1);
    const stack: number[] = [];
    tokens.forEach((token, index) => {
      if (token.nesting === 1) stack.push(index);
      else if (token.nesting === -1 && stack.length > 0) this.closeOf[stack.pop() as number] = index;
    });
  }

  key(): string {
    return (this.counter++).toString(36);
  }

  block(type: string, data: Record<string, unknown>, nodes?: DocChild[], extra?: Partial<DocNode>): DocNode {
    const node: DocNode = { object: 'block', type, key: this.key(), data };
    if (nodes) node.nodes = nodes;
    node.isVoid = extra?.isVoid ?? (!nodes && !extra?.fragments);
    if (extra?.fragments) node.fragments = extra.fragments;
    return node;
  }

  private end(index: number): number {
    const close = this.closeOf[index];
    return close < 0 ? this.tokens.length : close;
  }

  blocks(from: number, to: number): DocNode[] {
    const out: DocNode[] = [];
    for (let i = from; i < to; i++) {
      const token = this.tokens[i];
      const end = token.nesting === 1 ? this.end(i) : i;
      const node = this.blockAt(token, i, end);
      if (Array.isArray(node)) out.push(...node);
      else if (node) out.push(node);
      i = end;
    }
    return out;
  }

  private blockAt(token: Token, i: number, end: number): DocNode | DocNode[] | undefined {
    switch (token.type) {
      case 'paragraph_open':
        return this.paragraphOrImages(this.tokens[i + 1]);
      case 'heading_open':
        return this.heading(Math.min(Number(token.tag.slice(1)), 3), this.tokens[i + 1]?.children ?? []);
      case 'bullet_list_open':
      case 'ordered_list_open':
        return this.list(token, i, end);
      case 'blockquote_open':
        return this.block('blockquote', {}, this.fit(this.blocks(i + 1, end), ALLOWED.blockquote));
      case 'fence':
      case 'code_block':
        return this.code(token.content, token.type === 'fence' ? firstWord(token.info) : '');
      case 'hr':
        return this.block('divider', {});
      case 'table_open':
        return this.table(i, end);
      case 'gitbook_tag_open':
        return this.tag((token.meta as GitbookTagMeta).tag, i, end);
      case 'gitbook_void':
        return this.voidTag(token.meta as GitbookTagMeta);
      case 'gitbook_details_open':
        return this.expandable(token, i, end);
      case 'gitbook_figures':
        return this.figures(token.meta as FigureMeta);
      case 'gitbook_math':
        return this.block('math', { formula: token.content });
      default:
        return undefined;
    }
  }

  heading(level: number, children: Token[]): DocNode {
    const base = slugify(inlineText(children).trim());
    const seen = this.anchors.get(base) ?? 0;
    this.anchors.set(base, seen + 1);
    const node = this.block(`heading-${level}`, {}, this.inlines(children));
    node.meta = { id: seen ? `${base}-${seen}` : base };
    return node;
  }

  private list(token: Token, i: number, end: number): DocNode {
    const items: DocNode[] = [];
    const checks: (boolean | undefined)[] = [];
    for (let j = i + 1; j < end; j++) {
      if (this.tokens[j].type !== 'list_item_open') continue;
      const itemEnd = this.end(j);
      checks.push(this.tokens[j + 1]?.type === 'paragraph_open' ? taskMark(this.tokens[j + 2]?.content ?? '') : undefined);
      items.push(this.block('list-item', {}, ensureParagraph(this, this.fit(this.blocks(j + 1, itemEnd), ALLOWED['list-item']))));
      j = itemEnd;
    }
    if (token.type === 'ordered_list_open') {
      const start = Number(token.attrGet('start') ?? 1);
      return this.block('list-ordered', start !== 1 ? { start } : {}, items);
    }
    // A task list: every item starts with `[ ]` or `[x]` (as written: `\\[ ]` is text).
    if (items.length > 0 && checks.every((check) => check !== undefined)) {
      items.forEach((item, index) => {
        stripTaskMark(item);
        item.data = { checked: checks[index] };
      });
      return this.block('list-tasks', {}, items);
    }
    return this.block('list-unordered', {}, items);
  }

  code(content: string, syntax: string, extra: Record<string, unknown> = {}): DocNode {
    const text = content.endsWith('\n') ? content.slice(0, -1) : content;
    const lines = text.split('\n').map((line) => this.block('code-line', {}, [this.text([leaf(line, [])])]));
    return this.block('code', { ...(syntax ? { syntax } : {}), ...extra }, lines);
  }

  private table(i: number, end: number): DocNode {
    const tableKey = this.key();
    const headers: { title: string; align: string }[] = [];
    const rows: Token[][][] = [];
    for (let j = i + 1; j < end; j++) {
      const token = this.tokens[j];
      if (token.type === 'th_open') {
        const style = token.attrGet('style') ?? '';
        const align = style.includes('center') ? 'center' : style.includes('right') ? 'right' : 'left';
        headers.push({ title: inlineText(this.tokens[j + 1]?.children ?? null), align });
      } else if (token.type === 'tr_open' && this.tokens[j + 1]?.type === 'td_open') rows.push([]);
      else if (token.type === 'td_open') rows[rows.length - 1]?.push(this.tokens[j + 1]?.children ?? []);
    }
    const definition: Record<string, unknown> = {};
    const columns = headers.map((header, index) => {
      const id = `${tableKey}c${index}`;
      definition[id] = { id, title: header.title, type: 'text', textAlignment: header.align };
      return id;
    });
    const records: Record<string, unknown> = {};
    const fragments: DocFragment[] = [];
    rows.forEach((cells, row) => {
      const id = `${tableKey}r${row}`;
      const values: Record<string, string> = {};
      columns.forEach((column, index) => {
        const fragment = `${id}-${column}`;
        values[column] = fragment;
        fragments.push({ object: 'fragment', key: this.key(), fragment, nodes: [this.block('paragraph', {}, this.inlines(cells[index] ?? []))] });
      });
      records[id] = { orderIndex: `a${row.toString(36).padStart(6, '0')}`, values };
    });
    return {
      object: 'block',
      type: 'table',
      key: tableKey,
      isVoid: true,
      data: { view: { type: 'grid', columns, hideHeader: false }, records, definition },
      fragments,
    };
  }

  private tag(tag: LiquidTag, i: number, end: number): DocNode | DocNode[] | undefined {
    const attrs = tag.attrs;
    switch (tag.name) {
      case 'hint': {
        const style = ['info', 'warning', 'danger', 'success'].includes(attrs.style) ? attrs.style : 'info';
        return this.block('hint', { style, ...(attrs.icon ? { icon: attrs.icon } : {}) }, this.fit(this.blocks(i + 1, end), ALLOWED.hint));
      }
      case 'tabs':
        return this.block('tabs', {}, this.only('tabs-item', i, end));
      case 'tab':
        return this.block(
          'tabs-item',
          { title: attrs.title ?? '', ...(attrs.icon ? { icon: attrs.icon } : {}) },
          this.fit(this.blocks(i + 1, end), ALLOWED['tabs-item']),
        );
      case 'stepper':
        return this.block('stepper', {}, this.only('stepper-step', i, end));
      case 'step':
        return this.block('stepper-step', attrs.icon ? { icon: attrs.icon } : {}, this.fit(this.blocks(i + 1, end), ALLOWED['stepper-step']));
      case 'columns':
        return this.block('columns', attrs.fullWidth ? { fullWidth: attrs.fullWidth === 'true' } : {}, this.only('column', i, end));
      case 'column': {
        const data: Record<string, unknown> = {};
        if (attrs.width) data.width = parseLength(attrs.width);
        if (['top', 'middle', 'bottom'].includes(attrs.valign)) data.verticalAlignment = attrs.valign;
        return this.block('column', data, this.fit(this.blocks(i + 1, end), ALLOWED.column));
      }
      case 'if':
        return this.block('if', { expression: tag.args }, this.fit(this.blocks(i + 1, end), ALLOWED.document));
      case 'code': {
        const inner = this.blocks(i + 1, end);
        if (inner.length !== 1 || inner[0].type !== 'code') return inner;
        const data = inner[0].data as Record<string, unknown>;
        if (attrs.title) data.title = attrs.title;
        if (attrs.overflow === 'wrap' || attrs.overflow === 'scroll') data.overflow = attrs.overflow;
        for (const flag of ['lineNumbers', 'fullWidth', 'expandable']) if (attrs[flag] !== undefined) data[flag] = attrs[flag] === 'true';
        const collapsed = Number(attrs.collapsedLineCount);
        if (Number.isInteger(collapsed) && collapsed >= 1) data.collapsedLineCount = collapsed;
        return inner[0];
      }
      default:
        return this.blocks(i + 1, end);
    }
  }

  /** The children of a tabs / stepper / columns tag that are its items; anything else is dropped. */
  private only(type: string, i: number, end: number): DocNode[] {
    return this.blocks(i + 1, end).filter((node) => node.type === type);
  }

  private voidTag({ tag, body }: GitbookTagMeta): DocNode | undefined {
    const attrs = tag.attrs;
    const bool = (name: string) => (attrs[name] !== undefined ? { [name]: attrs[name] === 'true' } : {});
    switch (tag.name) {
      case 'embed':
        return attrs.url ? this.block('embed', { url: attrs.url, ...bool('fullWidth') }) : undefined;
      case 'file':
        return attrs.src ? this.block('file', { ref: { kind: 'file', file: fileId(attrs.src) } }) : undefined;
      case 'content-ref':
        return attrs.url ? this.block('content-ref', { ref: contentRef(attrs.url) }) : undefined;
      case 'include': {
        const path = firstQuoted(tag.args);
        return path ? this.block('reusable-content', { ref: { kind: 'reusable-content', reusableContent: reusableContentId(path) } }) : undefined;
      }
      case 'openapi':
      case 'swagger': {
        if (!attrs.src || attrs.path === undefined || attrs.method === undefined) return undefined;
        const file = FILE_REF.exec(attrs.src);
        const ref = file ? { kind: 'file', file: file[1] } : { kind: 'url', url: attrs.src };
        return this.block('swagger', { ref, path: attrs.path, method: attrs.method, ...bool('expanded'), ...bool('fullWidth') });
      }
      case 'openapi-operation':
        if (!attrs.spec || attrs.path === undefined || attrs.method === undefined) return undefined;
        return this.block('openapi-operation', { ref: { kind: 'openapi', spec: attrs.spec }, path: attrs.path, method: attrs.method });
      case 'openapi-schemas': {
        if (!attrs.spec) return undefined;
        const schemas = (attrs.schemas ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        return this.block('openapi-schemas', {
          ref: { kind: 'openapi', spec: attrs.spec },
          schemas,
          ...bool('grouped'),
          ...(attrs.title !== undefined ? { title: attrs.title } : {}),
        });
      }
      case 'openapi-webhook':
        if (!attrs.spec || attrs.name === undefined || attrs.method === undefined) return undefined;
        return this.block('openapi-webhook', { ref: { kind: 'openapi', spec: attrs.spec }, name: attrs.name, method: attrs.method });
      case 'document-node':
        return this.storedNode(body ?? '', 'block');
      default:
        return undefined;
    }
  }

  /** A node kept as JSON (`{% document-node %}`, `<span data-gb-node>`): its own keys are renumbered. */
  storedNode(json: string, object: 'block' | 'inline'): DocNode | undefined {
    const start = json.indexOf('{');
    const end = json.lastIndexOf('}');
    if (start < 0 || end < start) return undefined;
    let node: unknown;
    try {
      node = JSON.parse(json.slice(start, end + 1));
    } catch {
      return undefined;
    }
    if (!node || typeof node !== 'object' || (node as DocNode).object !== object || typeof (node as DocNode).type !== 'string') return undefined;
    this.rekey(node as DocNode);
    return node as DocNode;
  }

  private rekey(node: DocChild | DocFragment): void {
    node.key = this.key();
    if ('nodes' in node && Array.isArray(node.nodes)) node.nodes.forEach((child) => child && typeof child === 'object' && this.rekey(child));
    if ('fragments' in node && Array.isArray(node.fragments)) node.fragments.forEach((child) => child && typeof child === 'object' && this.rekey(child));
  }

  private expandable(token: Token, i: number, end: number): DocNode {
    const meta = token.meta as { open: boolean; title: Token[] };
    const titleTokens = meta.title;
    const title = this.block('paragraph', {}, this.inlines(titleTokens));
    const body = ensureParagraph(this, this.fit(this.blocks(i + 1, end), ALLOWED['expandable-body']));
    const anchor = slugify(inlineText(titleTokens).trim());
    return {
      object: 'block',
      type: 'expandable',
      key: this.key(),
      isVoid: true,
      data: meta.open ? { defaultExpanded: true } : {},
      fragments: [
        { object: 'fragment', key: this.key(), fragment: 'expandable-title', type: 'expandable-title', nodes: [title] },
        { object: 'fragment', key: this.key(), fragment: 'expandable-body', type: 'expandable-body', nodes: body },
      ],
      meta: { id: anchor },
    };
  }

  private figures({ images }: FigureMeta): DocNode {
    return this.block(
      'images',
      {},
      images.map((image) => {
        const data: Record<string, unknown> = { ref: imageRef(image.src), alt: image.alt };
        if (image.width !== undefined) data.width = parseLength(image.width);
        if (image.height !== undefined) data.height = parseLength(image.height);
        const fragments: DocFragment[] = [];
        if (image.caption) {
          fragments.push({ object: 'fragment', key: this.key(), fragment: 'caption', nodes: [this.block('paragraph', {}, this.inlines(image.caption))] });
        }
        return this.block('image', data, undefined, { isVoid: true, fragments });
      }),
    );
  }

  /** A paragraph holding only images is an images block; `&#x20;` alone is an empty paragraph. */
  private paragraphOrImages(inline: Token | undefined): DocNode {
    const children = inline?.children ?? [];
    const content = inline?.content ?? '';
    const meaningful = children.filter((child) => !(child.type === 'text' && child.content.trim() === '') && child.type !== 'softbreak');
    if (meaningful.length > 0 && meaningful.every((child) => child.type === 'image')) {
      return this.block(
        'images',
        {},
        meaningful.map((image) =>
          this.block('image', { ref: imageRef(image.attrGet('src') ?? ''), alt: plainText(image.children) }, undefined, { isVoid: true, fragments: [] }),
        ),
      );
    }
    if (content.trim() === '&#x20;') return this.block('paragraph', {}, [this.text([leaf('', [])])]);
    return this.block('paragraph', {}, this.inlines(children));
  }

  text(leaves: DocLeaf[]): DocText {
    return { object: 'text', key: this.key(), leaves };
  }

  /** Inline tokens → text nodes (leaves with marks) and inlines. */
  inlines(children: Token[]): DocChild[] {
    const out: DocChild[] = [];
    let marks: DocMark[] = [];
    let link: DocNode | null = null;
    const target = () => (link ? (link.nodes as DocChild[]) : out);
    const pushLeaf = (text: string, extra?: MarkType) => {
      const list = target();
      const leafMarks = extra ? sortMarks([...marks, { object: 'mark', type: extra }]) : marks;
      const last = list[list.length - 1];
      if (last && last.object === 'text') {
        const previous = last.leaves[last.leaves.length - 1];
        if (sameMarks(previous.marks, leafMarks)) previous.text += text;
        else last.leaves.push(leaf(text, leafMarks));
      } else list.push(this.text([leaf(text, leafMarks)]));
    };
    const pushInline = (node: DocNode | undefined) => {
      if (!node) return;
      if (link && node.type !== 'inline-image') out.push(node);
      else target().push(node);
    };
    const toggle = (type: MarkType, on: boolean, data?: DocMark['data']) => {
      if (on) marks = sortMarks([...marks.filter((mark) => mark.type !== type), data ? { object: 'mark', type, data } : { object: 'mark', type }]);
      else marks = marks.filter((mark) => mark.type !== type);
    };
    for (const child of children) {
      switch (child.type) {
        case 'text':
        case 'text_special':
          if (child.content) pushLeaf(child.content);
          break;
        case 'code_inline':
          pushLeaf(child.content, 'code');
          break;
        case 'softbreak':
        case 'hardbreak':
          // A break before any text (`\` alone on the first line) cannot be written back: dropped.
          if (out.length > 0 || link) pushLeaf('\n');
          break;
        case 'strong_open':
        case 'strong_close':
          toggle('bold', child.nesting === 1);
          break;
        case 'em_open':
        case 'em_close':
          toggle('italic', child.nesting === 1);
          break;
        case 's_open':
        case 's_close':
          toggle('strikethrough', child.nesting === 1);
          break;
        case 'gitbook_mark': {
          const meta = child.meta as { name: string; closing: boolean; attrs: Record<string, string> };
          const type = TAG_MARKS[meta.name];
          toggle(type, !meta.closing, type === 'color' && !meta.closing ? colorOf(meta.attrs.style ?? '') : undefined);
          break;
        }
        case 'link_open':
          if (!link)
            link = { object: 'inline', type: 'link', key: this.key(), data: { ref: contentRef(child.attrGet('href') ?? '') }, nodes: [], isVoid: false };
          break;
        case 'link_close':
          if (link) {
            if ((link.nodes as DocChild[]).length === 0) link.nodes = [this.text([leaf('', [])])];
            out.push(link);
          }
          link = null;
          break;
        case 'image':
          pushInline({
            object: 'inline',
            type: 'inline-image',
            key: this.key(),
            isVoid: true,
            data: { ref: imageRef(child.attrGet('src') ?? ''), alt: plainText(child.children) },
          });
          break;
        case 'gitbook_inline_math':
          pushInline({ object: 'inline', type: 'inline-math', key: this.key(), isVoid: true, data: { formula: child.content } });
          break;
        case 'gitbook_element':
          pushInline(this.element(child));
          break;
        default:
          break;
      }
    }
    return out.length > 0 ? out : [this.text([leaf('', [])])];
  }

  private element(token: Token): DocNode | undefined {
    const { kind, attrs } = token.meta as { kind: ElementKind; attrs: Record<string, string> };
    const inline = (type: string, data: Record<string, unknown>): DocNode => ({ object: 'inline', type, key: this.key(), isVoid: true, data });
    switch (kind) {
      case 'expression':
        return inline('expression', { expression: decodeAttr(token.content) });
      case 'emoji':
        return attrs['data-code'] ? inline('emoji', { code: attrs['data-code'] }) : undefined;
      case 'icon': {
        const icon = (attrs.class ?? '').split(' ').find((name) => name.startsWith('fa-'));
        return icon && icon.length > 3 ? inline('icon', { icon: icon.slice(3) }) : undefined;
      }
      case 'button': {
        const classes = (attrs.class ?? '').split(' ');
        const data: Record<string, unknown> = { label: decodeAttr(token.content), kind: classes.includes('secondary') ? 'secondary' : 'primary' };
        if (attrs['data-icon']) data.icon = attrs['data-icon'];
        data.ref = contentRef(attrs.href ?? '');
        return inline('button', data);
      }
      case 'node':
        return this.storedNode(attrs['data-gb-node'] ?? '', 'inline');
    }
  }

  /** Keeps the blocks `allowed` here; others give way to their content or to paragraphs of their text. */
  fit(nodes: DocNode[], allowed: Allowed): DocNode[] {
    const out: DocNode[] = [];
    for (const node of nodes) {
      if (allowed.has(node.type)) out.push(node);
      else out.push(...this.degrade(node, allowed));
    }
    return out;
  }

  private degrade(node: DocNode, allowed: Allowed): DocNode[] {
    const data = node.data ?? {};
    const paragraph = (children: DocChild[]) => [this.block('paragraph', {}, children)];
    const linkTo = (ref: unknown, label: string) =>
      paragraph([{ object: 'inline', type: 'link', key: this.key(), data: { ref }, nodes: [this.text([leaf(label, [])])], isVoid: false }]);
    switch (node.type) {
      case 'code':
        return paragraph([
          this.text([
            leaf(
              ((node.nodes ?? []) as DocNode[])
                .map((line) => textOf(line).trim())
                .filter(Boolean)
                .join('\n'),
              [],
            ),
          ]),
        ]);
      case 'math':
        return paragraph([{ object: 'inline', type: 'inline-math', key: this.key(), isVoid: true, data: { formula: data.formula } }]);
      case 'images':
        return paragraph(
          ((node.nodes ?? []) as DocNode[]).map((image) => ({ object: 'inline', type: 'inline-image', key: this.key(), isVoid: true, data: image.data })),
        );
      case 'embed':
        return linkTo({ kind: 'url', url: data.url }, String(data.url));
      case 'content-ref':
        return linkTo(data.ref, String(data.ref?.url ?? data.ref?.page ?? data.ref?.anchor ?? ''));
      case 'file':
        return linkTo(data.ref, String(data.ref?.file ?? ''));
      case 'table':
        return (node.fragments ?? []).length
          ? [this.block('paragraph', {}, [this.text([leaf((node.fragments ?? []).map((f) => textOf(f)).join(' | '), [])])])]
          : [];
      case 'expandable':
        return this.fit(
          (node.fragments ?? []).flatMap((fragment) => fragment.nodes),
          allowed,
        );
      default:
        return node.nodes ? this.fit(node.nodes as DocNode[], allowed) : [];
    }
  }
}

const TAG_MARKS: Record<string, MarkType> = {
  mark: 'color',
  kbd: 'keyboard',
  sup: 'superscript',
  sub: 'subscript',
  strong: 'bold',
  b: 'bold',
  em: 'italic',
  i: 'italic',
  s: 'strikethrough',
  del: 'strikethrough',
};

const COLORS = new Set([
  'default',
  'green',
  'blue',
  'red',
  'orange',
  'yellow',
  'purple',
  'pink',
  'violet',
  'cyan',
  '$primary',
  '$info',
  '$success',
  '$warning',
  '$danger',
  '$tint',
]);

/** `color:red;background-color:blue;` → the color mark's data (unknown colors are `default`). */
function colorOf(style: string): { text: string; background: string } {
  const data = { text: 'default', background: 'default' };
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1).trim();
    if (!COLORS.has(value)) continue;
    if (property === 'color') data.text = value;
    else if (property === 'background-color' || property === 'background') data.background = value;
  }
  return data;
}

export function leaf(text: string, marks: DocMark[]): DocLeaf {
  return { object: 'leaf', text, marks };
}

function sortMarks(marks: DocMark[]): DocMark[] {
  return [...marks].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
}

function sameMarks(a: DocMark[], b: DocMark[]): boolean {
  return a.length === b.length && a.every((mark, index) => mark.type === b[index].type && JSON.stringify(mark.data) === JSON.stringify(b[index].data));
}

function ensureParagraph(ctx: Context, nodes: DocNode[]): DocNode[] {
  return nodes.length > 0 ? nodes : [ctx.block('paragraph', {}, [ctx.text([leaf('', [])])])];
}

function taskMark(content: string): boolean | undefined {
  if (content.length > 3 && content[3] !== ' ') return undefined;
  const mark = content.slice(0, 3);
  if (mark === '[ ]') return false;
  if (mark === '[x]' || mark === '[X]') return true;
  return undefined;
}

function stripTaskMark(item: DocNode): void {
  const text = (item.nodes?.[0] as DocNode).nodes?.[0] as DocText | undefined;
  const head = text?.object === 'text' ? text.leaves[0] : undefined;
  if (head) head.text = head.text.slice(head.text.length > 3 ? 4 : 3);
}

/** The text of an image's alt tokens (escapes are `text_special` tokens there). */
function plainText(tokens: Token[] | null): string {
  return (tokens ?? [])
    .map((token) => {
      if (token.type === 'text' || token.type === 'text_special' || token.type === 'code_inline') return token.content;
      if (token.type === 'softbreak' || token.type === 'hardbreak') return ' ';
      if (token.type === 'image') return plainText(token.children);
      return '';
    })
    .join('');
}

function firstWord(info: string): string {
  const trimmed = info.trim();
  let end = 0;
  while (end < trimmed.length && trimmed[end] !== ' ' && trimmed[end] !== '\t') end++;
  return trimmed.slice(0, end);
}

/** `50%` → `{ unit: '%', value: 50 }`, `320` → 320; else undefined. */
function parseLength(value: string): unknown {
  const trimmed = value.trim();
  const percent = trimmed.endsWith('%');
  const number = Number(percent ? trimmed.slice(0, -1) : trimmed);
  if (trimmed === '' || !Number.isFinite(number)) return undefined;
  return percent ? { unit: '%', value: number } : number;
}

export function textOf(node: DocChild | DocFragment): string {
  if ('leaves' in node) return node.leaves.map((item) => item.text).join('');
  return ((node.nodes ?? []) as DocChild[]).map(textOf).join('');
}

/** How bodies point at content: `/pages/ID#anchor`, `/files/ID`, `#anchor`, or a URL. */
export function contentRef(href: string): Record<string, string> {
  const page = PAGE_REF.exec(href);
  if (page) return page[2] ? { kind: 'anchor', anchor: page[2], page: page[1] } : { kind: 'page', page: page[1] };
  const file = FILE_REF.exec(href);
  if (file) return { kind: 'file', file: file[1] };
  if (href.startsWith('#') && href.length > 1) return { kind: 'anchor', anchor: href.slice(1) };
  return { kind: 'url', url: href };
}

function imageRef(src: string): Record<string, string> {
  const file = FILE_REF.exec(src);
  return file ? { kind: 'file', file: file[1] } : { kind: 'url', url: src };
}

function fileId(src: string): string {
  const file = FILE_REF.exec(src);
  return file ? file[1] : src;
}

/** `{% include ".gitbook/includes/ID.md" %}` (GitBook's layout) or `{% include "ID" %}` → the reusable content's id. */
function reusableContentId(path: string): string {
  const slash = path.lastIndexOf('/');
  const name = slash >= 0 ? path.slice(slash + 1) : path;
  return name.endsWith('.md') ? name.slice(0, -3) : name;
}
