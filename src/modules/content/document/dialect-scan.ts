/**
 * Hand-written scanners for the tags of GitBook's Markdown dialect: `{% name key="value" %}` lines
 * and the few HTML tags the dialect uses (`<mark style="…">`, `<kbd>`, `<figure>`…). No regular
 * expression here: every scanner moves forward only, so parsing stays linear in the input whatever
 * the input is (an unclosed quote, `{%` repeated a million times).
 */

export type Attrs = Record<string, string>;

export interface LiquidTag {
  /** `hint`, `endhint`, `include`… */
  name: string;
  /** `key="value"` pairs. */
  attrs: Attrs;
  /** Everything between the name and `%}`, trimmed: the expression of `{% if … %}`, the path of `{% include "…" %}`. */
  args: string;
}

export interface HtmlTag {
  name: string;
  closing: boolean;
  attrs: Attrs;
  /** Index just past the `>`. */
  end: number;
}

const SPACE = 0x20;
const TAB = 0x09;

export const isSpace = (code: number) => code === SPACE || code === TAB;
const isNameChar = (code: number) =>
  (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f || code === 0x3a;

/** `&quot;`, `&amp;`, `&lt;`, `&gt;`, `&#39;`, `&#124;` back to their characters (the only ones the serializer writes in attributes). */
export function decodeAttr(value: string): string {
  if (!value.includes('&')) return value;
  let out = '';
  let i = 0;
  while (i < value.length) {
    const amp = value.indexOf('&', i);
    if (amp < 0) break;
    out += value.slice(i, amp);
    const semi = value.indexOf(';', amp);
    const entity = semi > amp && semi - amp <= 7 ? value.slice(amp, semi + 1) : '';
    const decoded = ENTITIES[entity];
    if (decoded !== undefined) {
      out += decoded;
      i = semi + 1;
    } else {
      out += '&';
      i = amp + 1;
    }
  }
  return out + value.slice(i);
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#39;': "'", '&#124;': '|' };

export function encodeAttr(value: string): string {
  let out = '';
  for (const char of value) {
    if (char === '&') out += '&amp;';
    else if (char === '"') out += '&quot;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (char === '|')
      out += '&#124;'; // would end a table cell
    else if (char === '\n') out += ' ';
    else out += char;
  }
  return out;
}

/**
 * Reads `key="value" key2='v' key3=bare flag` from `src[from, to)`. Stops at the first character
 * that cannot start an attribute; returns the attributes and where it stopped.
 */
function scanAttrs(src: string, from: number, to: number): { attrs: Attrs; pos: number } {
  const attrs: Attrs = {};
  let pos = from;
  for (;;) {
    while (pos < to && isSpace(src.charCodeAt(pos))) pos++;
    const nameStart = pos;
    while (pos < to && isNameChar(src.charCodeAt(pos))) pos++;
    if (pos === nameStart) return { attrs, pos };
    const name = src.slice(nameStart, pos);
    if (src.charCodeAt(pos) !== 0x3d /* = */) {
      attrs[name] = '';
      continue;
    }
    pos++;
    const quote = src[pos];
    if (quote === '"' || quote === "'") {
      const close = src.indexOf(quote, pos + 1);
      if (close < 0 || close >= to) return { attrs, pos: to };
      attrs[name] = decodeAttr(src.slice(pos + 1, close));
      pos = close + 1;
    } else {
      const valueStart = pos;
      while (pos < to && !isSpace(src.charCodeAt(pos)) && src[pos] !== '>' && src[pos] !== '%') pos++;
      attrs[name] = decodeAttr(src.slice(valueStart, pos));
    }
  }
}

/**
 * A `{% name … %}` tag filling `src[from, to)` (one line, leading spaces already skipped; trailing
 * spaces allowed). Undefined when the line is not exactly one tag.
 */
export function scanLiquidLine(src: string, from: number, to: number): LiquidTag | undefined {
  if (src.charCodeAt(from) !== 0x7b /* { */ || src.charCodeAt(from + 1) !== 0x25 /* % */) return undefined;
  let end = to;
  while (end > from && isSpace(src.charCodeAt(end - 1))) end--;
  if (end - from < 5 || src.charCodeAt(end - 1) !== 0x7d || src.charCodeAt(end - 2) !== 0x25) return undefined;
  const inner = end - 2;
  let pos = from + 2;
  if (src[pos] === '-') pos++;
  while (pos < inner && isSpace(src.charCodeAt(pos))) pos++;
  const nameStart = pos;
  while (pos < inner && isNameChar(src.charCodeAt(pos))) pos++;
  if (pos === nameStart) return undefined;
  const name = src.slice(nameStart, pos).toLowerCase();
  let argsEnd = inner;
  if (src[argsEnd - 1] === '-') argsEnd--;
  const args = src.slice(pos, argsEnd).trim();
  // An unquoted `%}` inside the tag would make it two tags on one line: not a tag line.
  if (!insideQuotes(src, pos, inner)) return undefined;
  const { attrs } = scanAttrs(src, pos, argsEnd);
  return { name, attrs, args };
}

/** Whether every `%}` between from and to sits inside a quoted value. */
function insideQuotes(src: string, from: number, to: number): boolean {
  let quote = '';
  for (let i = from; i < to; i++) {
    const char = src[i];
    if (quote) {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '%' && src[i + 1] === '}') return false;
  }
  return true;
}

/** The quoted string of `{% include "path" %}` (or the bare args). */
export function firstQuoted(args: string): string {
  const quote = args[0];
  if (quote === '"' || quote === "'") {
    const close = args.indexOf(quote, 1);
    return decodeAttr(close > 0 ? args.slice(1, close) : args.slice(1));
  }
  return args;
}

/** An HTML tag starting at `src[pos] === '<'` and ending before `max`, or undefined. */
export function scanHtmlTag(src: string, pos: number, max: number): HtmlTag | undefined {
  if (src.charCodeAt(pos) !== 0x3c /* < */) return undefined;
  let i = pos + 1;
  const closing = src[i] === '/';
  if (closing) i++;
  const nameStart = i;
  while (i < max && isNameChar(src.charCodeAt(i))) i++;
  if (i === nameStart) return undefined;
  const name = src.slice(nameStart, i).toLowerCase();
  if (i < max && !isSpace(src.charCodeAt(i)) && src[i] !== '>' && src[i] !== '/') return undefined;
  const { attrs, pos: after } = scanAttrs(src, i, max);
  let end = after;
  while (end < max && isSpace(src.charCodeAt(end))) end++;
  if (src[end] === '/') end++;
  if (src[end] !== '>') return undefined;
  return { name, closing, attrs, end: end + 1 };
}

/**
 * `indexOf` for scanners that look for the closing part of an opener (`$$`, `</code>`) many times
 * over one text: remembers the last answer so that openers without a closing part cost O(1) after
 * the first, keeping `$$ $$ $$ …` or `<code class="expression">` repeated linear.
 */
export class ForwardFinder {
  private readonly last = new Map<string, { from: number; at: number }>();

  constructor(private readonly src: string) {}

  find(target: string, pos: number): number {
    const cached = this.last.get(target);
    if (cached && pos >= cached.from && (cached.at < 0 || pos <= cached.at)) return cached.at;
    const at = this.src.indexOf(target, pos);
    this.last.set(target, { from: pos, at });
    return at;
  }
}
