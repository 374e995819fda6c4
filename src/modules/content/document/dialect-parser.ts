import MarkdownIt from 'markdown-it';
import { Attrs, firstQuoted, ForwardFinder, isSpace, LiquidTag, scanHtmlTag, scanLiquidLine } from './dialect-scan';

/**
 * markdown-it extended with GitBook's dialect: block rules for `{% tag %}…{% endtag %}`,
 * `<details>`, `<figure>` lines and `$$` math; inline rules for `$$math$$`, the mark tags
 * (`<mark>`, `<kbd>`, `<sup>`, `<sub>`, `<strong>`, `<em>`, `<s>`) and the inline elements
 * (`<code class="expression">`, emoji and icon spans, buttons, `<span data-gb-node>`). Raw HTML stays
 * off: any other tag is text.
 *
 * Where a container closes is found once per parse by `pairTags`, one pass over the lines with a
 * stack, so a block rule never scans ahead for its end: `{% hint %}` repeated a million times, or
 * nested as deep as markdown-it allows, stays linear.
 */
export type Token = ReturnType<MarkdownIt['parse']>[number];
type StateBlock = MarkdownIt.StateBlock;
type StateInline = MarkdownIt.StateInline;

/** Tags whose body is blocks, up to `{% endNAME %}` (to the end of the enclosing block when unclosed). */
export const CONTAINER_TAGS = new Set(['hint', 'tabs', 'tab', 'code', 'stepper', 'step', 'columns', 'column', 'if']);
/** Tags that stand alone or carry a body the document does not keep (a caption, a link for other renderers). */
export const VOID_TAGS = new Set([
  'embed',
  'file',
  'content-ref',
  'include',
  'openapi',
  'swagger',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
  'document-node',
]);

/** Element tags the inline rule turns into toggles of a mark. */
export const MARK_TAGS = new Set(['mark', 'kbd', 'sup', 'sub', 'strong', 'b', 'em', 'i', 's', 'del']);

interface Env {
  /** Opening line → closing line of every paired container, tag or `$$`. */
  pairs: Map<number, number>;
  finders: WeakMap<object, ForwardFinder>;
}

export interface GitbookTagMeta {
  tag: LiquidTag;
  /** Raw text of the body of a void tag (the JSON of `{% document-node %}`). */
  body?: string;
}

export interface FigureMeta {
  images: { src: string; alt: string; width?: string; height?: string; caption?: Token[] }[];
}

export const dialectParser = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
// Links and images keep their destination as written: stable refs (`/pages/ID`) and URLs round-trip.
dialectParser.normalizeLink = (url: string) => url;
dialectParser.normalizeLinkText = (url: string) => url;

export function parseDialect(markdown: string): Token[] {
  // markdown-it reads `\r\n` and `\r` as line ends: the pairing counts lines of the same text.
  const text = markdown.includes('\r') ? markdown.replace(/\r\n?/g, '\n') : markdown;
  const env: Env = { pairs: pairTags(text), finders: new WeakMap() };
  return dialectParser.parse(text, env);
}

// ---- pairing (one pass over the lines) -----------------------------------------------------

type LineKind = { open: string } | { close: string } | { math: true } | { fence: string } | undefined;

function classify(src: string, start: number, end: number): LineKind {
  let pos = start;
  // Past indentation, quote markers and list markers (`- `, `1. `, `> `): a tag may open a list
  // item or sit in a quote, and markdown-it reads it there.
  for (;;) {
    while (pos < end && isSpace(src.charCodeAt(pos))) pos++;
    const char = src[pos];
    if (char === '>') {
      pos++;
      continue;
    }
    if ((char === '-' || char === '*' || char === '+') && isSpace(src.charCodeAt(pos + 1))) {
      pos += 2;
      continue;
    }
    let digits = pos;
    while (digits < end && digits - pos < 9 && src.charCodeAt(digits) >= 0x30 && src.charCodeAt(digits) <= 0x39) digits++;
    if (digits > pos && (src[digits] === '.' || src[digits] === ')') && isSpace(src.charCodeAt(digits + 1))) {
      pos = digits + 2;
      continue;
    }
    break;
  }
  const first = src[pos];
  if (first === '`' || first === '~') {
    let run = pos;
    while (run < end && src[run] === first) run++;
    if (run - pos >= 3) return { fence: src.slice(pos, run) };
    return undefined;
  }
  if (first === '$' && src[pos + 1] === '$') {
    let rest = pos + 2;
    while (rest < end && isSpace(src.charCodeAt(rest))) rest++;
    return rest === end ? { math: true } : undefined;
  }
  if (first === '{') {
    const tag = scanLiquidLine(src, pos, end);
    if (!tag) return undefined;
    if (tag.name.startsWith('end')) return { close: tag.name.slice(3) };
    return CONTAINER_TAGS.has(tag.name) || VOID_TAGS.has(tag.name) ? { open: tag.name } : undefined;
  }
  if (first === '<') {
    const tag = scanHtmlTag(src, pos, end);
    if (tag?.name !== 'details') return undefined;
    return tag.closing ? { close: 'details' } : { open: 'details' };
  }
  return undefined;
}

function pairTags(src: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const stack: { name: string; line: number }[] = [];
  const open = new Map<string, number>();
  let fence = '';
  let math = -1;
  let line = 0;
  for (let start = 0; start <= src.length; line++) {
    let end = src.indexOf('\n', start);
    if (end < 0) end = src.length;
    const kind = classify(src, start, end);
    if (fence) {
      if (kind && 'fence' in kind && kind.fence[0] === fence[0] && kind.fence.length >= fence.length) fence = '';
    } else if (math >= 0) {
      if (kind && 'math' in kind) {
        pairs.set(math, line);
        math = -1;
      }
    } else if (kind && 'fence' in kind) fence = kind.fence;
    else if (kind && 'math' in kind) math = line;
    else if (kind && 'open' in kind) {
      stack.push({ name: kind.open, line });
      open.set(kind.open, (open.get(kind.open) ?? 0) + 1);
    } else if (kind && 'close' in kind && (open.get(kind.close) ?? 0) > 0) {
      // Pop up to the matching opener; openers popped on the way stay unclosed. Each line is pushed
      // and popped once, and the count per name makes a close without opener O(1).
      for (;;) {
        const top = stack.pop() as { name: string; line: number };
        open.set(top.name, (open.get(top.name) ?? 1) - 1);
        if (top.name === kind.close) {
          pairs.set(top.line, line);
          break;
        }
      }
    }
    start = end + 1;
  }
  return pairs;
}

// ---- block rules -----------------------------------------------------------------------------

function lineText(state: StateBlock, line: number): { src: string; start: number; end: number } {
  return { src: state.src, start: state.bMarks[line] + state.tShift[line], end: state.eMarks[line] };
}

/** The closing line paired with `line`, if it closes inside the current block. */
function closingLine(state: StateBlock, line: number, endLine: number): number | undefined {
  const close = (state.env as Env).pairs?.get(line);
  return close !== undefined && close < endLine ? close : undefined;
}

function rawLines(state: StateBlock, from: number, to: number): string {
  const lines: string[] = [];
  for (let line = from; line < to; line++) lines.push(state.src.slice(state.bMarks[line] + Math.min(state.tShift[line], state.blkIndent), state.eMarks[line]));
  return lines.join('\n');
}

function withChildren(state: StateBlock, type: string, meta: unknown, startLine: number, from: number, to: number, nextLine: number): void {
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'container' as never;
  state.lineMax = to;
  const open = state.push(`${type}_open`, 'div', 1);
  open.meta = meta;
  open.map = [startLine, nextLine];
  open.block = true;
  state.md.block.tokenize(state, from, to);
  const close = state.push(`${type}_close`, 'div', -1);
  close.block = true;
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = nextLine;
}

function liquidRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const { src, start, end } = lineText(state, startLine);
  if (src.charCodeAt(start) !== 0x7b) return false;
  const tag = scanLiquidLine(src, start, end);
  if (!tag || !(CONTAINER_TAGS.has(tag.name) || VOID_TAGS.has(tag.name))) return false;
  if (silent) return true;
  const close = closingLine(state, startLine, endLine);
  if (CONTAINER_TAGS.has(tag.name)) {
    const to = close ?? endLine;
    withChildren(state, 'gitbook_tag', { tag } satisfies GitbookTagMeta, startLine, startLine + 1, to, close === undefined ? endLine : close + 1);
    return true;
  }
  const token = state.push('gitbook_void', 'div', 0);
  token.meta = { tag, body: close === undefined ? undefined : rawLines(state, startLine + 1, close) } satisfies GitbookTagMeta;
  token.map = [startLine, close === undefined ? startLine + 1 : close + 1];
  token.block = true;
  state.line = close === undefined ? startLine + 1 : close + 1;
  return true;
}

/** `<details>` / `<details open>` … `</details>`, with a `<summary>…</summary>` line as its title. */
function detailsRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const { src, start, end } = lineText(state, startLine);
  if (src.charCodeAt(start) !== 0x3c) return false;
  const tag = scanHtmlTag(src, start, end);
  if (!tag || tag.closing || tag.name !== 'details') return false;
  let rest = tag.end;
  while (rest < end && isSpace(src.charCodeAt(rest))) rest++;
  if (rest !== end) return false;
  if (silent) return true;
  const close = closingLine(state, startLine, endLine);
  const to = close ?? endLine;
  // The title: the first non-blank line, when it is `<summary>…</summary>`.
  let line = startLine + 1;
  while (line < to && state.isEmpty(line)) line++;
  let title: string | undefined;
  if (line < to) {
    const text = lineText(state, line);
    const summary = scanHtmlTag(text.src, text.start, text.end);
    if (summary && !summary.closing && summary.name === 'summary') {
      let tail = text.end;
      while (tail > summary.end && isSpace(text.src.charCodeAt(tail - 1))) tail--;
      const closer = '</summary>';
      if (text.src.slice(tail - closer.length, tail).toLowerCase() === closer && tail - closer.length >= summary.end) {
        title = text.src.slice(summary.end, tail - closer.length);
        line++;
      }
    }
  }
  const titleTokens: Token[] = [];
  if (title !== undefined) state.md.inline.parse(title, state.md, state.env, titleTokens);
  withChildren(
    state,
    'gitbook_details',
    { open: 'open' in tag.attrs, title: titleTokens },
    startLine,
    title === undefined ? startLine + 1 : line,
    to,
    close === undefined ? endLine : close + 1,
  );
  return true;
}

/** Consecutive `<figure><img …><figcaption>…</figcaption></figure>` lines: one images block. */
function figureRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const first = figureOf(state, startLine);
  if (!first) return false;
  if (silent) return true;
  const images = [first];
  let line = startLine + 1;
  for (; line < endLine && state.sCount[line] - state.blkIndent < 4; line++) {
    const next = figureOf(state, line);
    if (!next) break;
    images.push(next);
  }
  const token = state.push('gitbook_figures', 'figure', 0);
  token.meta = { images } satisfies FigureMeta;
  token.map = [startLine, line];
  token.block = true;
  state.line = line;
  return true;
}

function figureOf(state: StateBlock, line: number): FigureMeta['images'][number] | undefined {
  const { src, start, end } = lineText(state, line);
  if (src.charCodeAt(start) !== 0x3c) return undefined;
  const figure = scanHtmlTag(src, start, end);
  if (!figure || figure.closing || figure.name !== 'figure') return undefined;
  let tail = end;
  while (tail > figure.end && isSpace(src.charCodeAt(tail - 1))) tail--;
  const closer = '</figure>';
  if (tail - closer.length < figure.end || src.slice(tail - closer.length, tail).toLowerCase() !== closer) return undefined;
  const innerEnd = tail - closer.length;
  // Inside: one <img>, optionally wrapped in <picture>, then optionally <figcaption>…</figcaption>.
  let pos = figure.end;
  let img: Attrs | undefined;
  let caption: string | undefined;
  while (pos < innerEnd) {
    const lt = src.indexOf('<', pos);
    if (lt < 0 || lt >= innerEnd) break;
    const tag = scanHtmlTag(src, lt, innerEnd);
    if (!tag) {
      pos = lt + 1;
      continue;
    }
    pos = tag.end;
    if (tag.name === 'img' && !tag.closing && !img) img = tag.attrs;
    else if (tag.name === 'figcaption' && !tag.closing) {
      const close = src.slice(pos, innerEnd).toLowerCase().indexOf('</figcaption>') + pos;
      if (close < pos) return undefined;
      if (close < 0 || close > innerEnd) return undefined;
      caption = src.slice(pos, close).trim();
      pos = close + '</figcaption>'.length;
    }
  }
  if (!img || img.src === undefined) return undefined;
  let captionTokens: Token[] | undefined;
  if (caption !== undefined) {
    // GitBook wraps the caption in <p>…</p>.
    if (caption.toLowerCase().startsWith('<p>') && caption.toLowerCase().endsWith('</p>')) caption = caption.slice(3, -4);
    captionTokens = [];
    state.md.inline.parse(caption, state.md, state.env, captionTokens);
  }
  return { src: img.src, alt: img.alt ?? '', width: img.width, height: img.height, caption: captionTokens };
}

/** `$$` alone on a line, the formula, `$$` alone on a line (unclosed: to the end of the block). */
function mathRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const { src, start, end } = lineText(state, startLine);
  if (src.charCodeAt(start) !== 0x24 || src.charCodeAt(start + 1) !== 0x24) return false;
  let rest = start + 2;
  while (rest < end && isSpace(src.charCodeAt(rest))) rest++;
  if (rest !== end) return false;
  if (silent) return true;
  const close = closingLine(state, startLine, endLine);
  const token = state.push('gitbook_math', 'div', 0);
  token.content = rawLines(state, startLine + 1, close ?? endLine);
  token.map = [startLine, close === undefined ? endLine : close + 1];
  token.block = true;
  state.line = close === undefined ? endLine : close + 1;
  return true;
}

// ---- inline rules ----------------------------------------------------------------------------

function finder(state: StateInline): ForwardFinder {
  const env = state.env as Env;
  let found = env.finders?.get(state);
  if (!found) {
    found = new ForwardFinder(state.src);
    env.finders?.set(state, found);
  }
  return found;
}

/** `$$formula$$` inside text. */
function inlineMathRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x24 || state.src.charCodeAt(pos + 1) !== 0x24) return false;
  const close = finder(state).find('$$', pos + 2);
  if (close < 0 || close >= state.posMax || close === pos + 2) return false;
  if (!silent) {
    const token = state.push('gitbook_inline_math', '', 0);
    token.content = state.src.slice(pos + 2, close);
  }
  state.pos = close + 2;
  return true;
}

/**
 * The dialect's inline HTML: mark toggles (`<kbd>`, `</kbd>`…), `<br>`, and elements whose content
 * is kept raw up to their closing tag (`<code class="expression">`, emoji spans, icons, buttons,
 * `<span data-gb-node>`).
 */
function inlineTagRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x3c) return false;
  const tag = scanHtmlTag(state.src, pos, state.posMax);
  if (!tag) return false;
  if (tag.name === 'br' && !tag.closing) {
    if (!silent) state.push('hardbreak', 'br', 0);
    state.pos = tag.end;
    return true;
  }
  const element = !tag.closing && elementKind(tag.name, tag.attrs);
  if (element) {
    const closer = `</${tag.name}>`;
    const close = finder(state).find(closer, tag.end);
    if (close < 0 || close + closer.length > state.posMax) return false;
    if (!silent) {
      const token = state.push('gitbook_element', '', 0);
      token.meta = { kind: element, attrs: tag.attrs };
      token.content = state.src.slice(tag.end, close);
    }
    state.pos = close + closer.length;
    return true;
  }
  if (!MARK_TAGS.has(tag.name)) return false;
  if (!silent) {
    const token = state.push('gitbook_mark', '', 0);
    token.meta = { name: tag.name, closing: tag.closing, attrs: tag.attrs };
  }
  state.pos = tag.end;
  return true;
}

export type ElementKind = 'expression' | 'emoji' | 'icon' | 'button' | 'node';

function elementKind(name: string, attrs: Attrs): ElementKind | undefined {
  if (name === 'code' && attrs.class === 'expression') return 'expression';
  if (name === 'span' && attrs['data-gb-node'] !== undefined) return 'node';
  if (name === 'span' && 'data-gb-custom-inline' in attrs && attrs['data-tag'] === 'emoji') return 'emoji';
  if (name === 'i' && (attrs.class ?? '').startsWith('fa-')) return 'icon';
  if (name === 'a' && (attrs.class ?? '').split(' ').includes('button')) return 'button';
  return undefined;
}

export const includePath = (tag: LiquidTag) => firstQuoted(tag.args);

dialectParser.block.ruler.before('fence', 'gitbook_math', mathRule, { alt: ['paragraph'] });
dialectParser.block.ruler.before('fence', 'gitbook_tag', liquidRule, { alt: ['paragraph'] });
dialectParser.block.ruler.before('fence', 'gitbook_details', detailsRule, { alt: ['paragraph'] });
dialectParser.block.ruler.before('fence', 'gitbook_figure', figureRule, { alt: ['paragraph'] });
dialectParser.inline.ruler.after('escape', 'gitbook_inline_math', inlineMathRule);
dialectParser.inline.ruler.after('escape', 'gitbook_inline_tag', inlineTagRule);
