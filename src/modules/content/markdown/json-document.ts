import { FILE_REF, PAGE_REF, parseMarkdown, Token } from './markdown';
import { slugify } from '../tree/slugs';

/**
 * A page body as the public `JSONDocument` (`format=document`): the block tree of the body's
 * markdown. Paragraphs, headings, lists, code, quotes, dividers, images, links and text marks map
 * one to one; tables and raw HTML, which have no simple counterpart, become paragraphs of their text.
 */
type Json = Record<string, unknown>;
type Mark = 'bold' | 'italic' | 'code' | 'strikethrough';

export function toJsonDocument(markdown: string): Json {
  const tokens = parseMarkdown(markdown);
  const anchors = new Map<string, number>();
  return { object: 'document', data: {}, nodes: blocks(tokens, 0, tokens.length, anchors, false) };
}

export function contentRef(href: string): Json {
  const page = PAGE_REF.exec(href);
  if (page) return page[2] ? { kind: 'anchor', anchor: page[2], page: page[1] } : { kind: 'page', page: page[1] };
  const file = FILE_REF.exec(href);
  if (file) return { kind: 'file', file: file[1] };
  if (href.startsWith('#')) return { kind: 'anchor', anchor: href.slice(1) };
  return { kind: 'url', url: href };
}

/** Index of the token closing the one opened at `start` (same nesting level). */
function closing(tokens: Token[], start: number): number {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    depth += tokens[i].nesting;
    if (depth === 0) return i;
  }
  return tokens.length - 1;
}

/** Blocks between `from` and `to`. Inside a quote only "essential" blocks are allowed, so code degrades to paragraphs there. */
function blocks(tokens: Token[], from: number, to: number, anchors: Map<string, number>, inQuote: boolean): Json[] {
  const out: Json[] = [];
  for (let i = from; i < to; i++) {
    const token = tokens[i];
    switch (token.type) {
      case 'paragraph_open': {
        const end = closing(tokens, i);
        out.push(paragraphOrImages(tokens[i + 1]));
        i = end;
        break;
      }
      case 'heading_open': {
        const end = closing(tokens, i);
        const level = Math.min(Number(token.tag.slice(1)), 3);
        const text = (tokens[i + 1].children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
        const base = slugify(text);
        const seen = anchors.get(base) ?? 0;
        anchors.set(base, seen + 1);
        out.push({ object: 'block', type: `heading-${level}`, data: { id: seen ? `${base}-${seen}` : base }, nodes: inlines(tokens[i + 1].children ?? []) });
        i = end;
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const end = closing(tokens, i);
        const items: Json[] = [];
        for (let j = i + 1; j < end; j++) {
          if (tokens[j].type !== 'list_item_open') continue;
          const itemEnd = closing(tokens, j);
          items.push({ object: 'block', type: 'list-item', data: {}, nodes: ensureBlock(blocks(tokens, j + 1, itemEnd, anchors, false)) });
          j = itemEnd;
        }
        const ordered = token.type === 'ordered_list_open';
        const start = Number(token.attrGet('start') ?? 1);
        out.push({ object: 'block', type: ordered ? 'list-ordered' : 'list-unordered', data: ordered && start !== 1 ? { start } : {}, nodes: items });
        i = end;
        break;
      }
      case 'blockquote_open': {
        const end = closing(tokens, i);
        out.push({ object: 'block', type: 'blockquote', data: {}, nodes: ensureBlock(blocks(tokens, i + 1, end, anchors, true)) });
        i = end;
        break;
      }
      case 'fence':
      case 'code_block': {
        const content = token.content.replace(/\n$/, '');
        if (inQuote) {
          out.push(textParagraph(content));
          break;
        }
        const syntax = token.info.trim().split(/\s+/)[0];
        const lines = content.split('\n').map((line) => ({ object: 'block', type: 'code-line', data: {}, nodes: [text(line, [])] }));
        out.push({ object: 'block', type: 'code', data: syntax ? { syntax } : {}, nodes: lines });
        break;
      }
      case 'hr':
        out.push({ object: 'block', type: 'divider', isVoid: true, data: {} });
        break;
      case 'table_open': {
        const end = closing(tokens, i);
        for (let j = i + 1; j < end; j++) {
          if (tokens[j].type !== 'tr_open') continue;
          const rowEnd = closing(tokens, j);
          const cells = tokens.slice(j, rowEnd).filter((cell) => cell.type === 'inline');
          out.push(textParagraph(cells.map((cell) => cell.content).join(' | ')));
          j = rowEnd;
        }
        i = end;
        break;
      }
      case 'html_block':
        if (token.content.trim()) out.push(textParagraph(token.content.trim()));
        break;
      default:
        break;
    }
  }
  return out;
}

function ensureBlock(nodes: Json[]): Json[] {
  return nodes.length > 0 ? nodes : [textParagraph('')];
}

function textParagraph(content: string): Json {
  return { object: 'block', type: 'paragraph', nodes: [text(content, [])] };
}

/** A paragraph holding only images is an images block; otherwise a paragraph. */
function paragraphOrImages(inline: Token): Json {
  const children = inline.children ?? [];
  const meaningful = children.filter((child) => !(child.type === 'text' && child.content.trim() === '') && child.type !== 'softbreak');
  if (meaningful.length > 0 && meaningful.every((child) => child.type === 'image')) {
    return {
      object: 'block',
      type: 'images',
      data: {},
      isVoid: false,
      nodes: meaningful.map((image) => ({
        object: 'block',
        type: 'image',
        isVoid: true,
        fragments: [],
        data: { ref: imageRef(image.attrGet('src') ?? ''), alt: image.content },
      })),
    };
  }
  return { object: 'block', type: 'paragraph', nodes: inlines(children) };
}

function imageRef(src: string): Json {
  const file = FILE_REF.exec(src);
  return file ? { kind: 'file', file: file[1] } : { kind: 'url', url: src };
}

function text(content: string, marks: Mark[]): Json {
  return { object: 'text', leaves: [{ object: 'leaf', text: content, marks: marks.map((type) => ({ object: 'mark', type })) }] };
}

/** Inline tokens → text nodes (with marks), links and inline images. */
function inlines(children: Token[]): Json[] {
  const out: Json[] = [];
  const marks: Mark[] = [];
  let link: { ref: Json; nodes: Json[] } | null = null;
  const push = (node: Json) => (link ? link.nodes : out).push(node);
  const toggle = (mark: Mark, on: boolean) => {
    if (on) marks.push(mark);
    else marks.splice(marks.lastIndexOf(mark), 1);
  };
  for (const child of children) {
    switch (child.type) {
      case 'text':
      case 'html_inline':
        if (child.content) push(text(child.content, [...marks]));
        break;
      case 'code_inline':
        push(text(child.content, [...marks, 'code']));
        break;
      case 'softbreak':
      case 'hardbreak':
        push(text('\n', [...marks]));
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
      case 'link_open':
        link = { ref: contentRef(child.attrGet('href') ?? ''), nodes: [] };
        break;
      case 'link_close':
        if (link) out.push({ object: 'inline', type: 'link', data: { ref: link.ref }, nodes: link.nodes.length ? link.nodes : [text('', [])], isVoid: false });
        link = null;
        break;
      case 'image':
        push({ object: 'inline', type: 'inline-image', isVoid: true, data: { ref: imageRef(child.attrGet('src') ?? ''), alt: child.content } });
        break;
      default:
        break;
    }
  }
  return out.length > 0 ? out : [text('', [])];
}
