import MarkdownIt from 'markdown-it';
import { slugify } from '../tree/slugs';

/**
 * Deepest nesting markdown-it follows (blocks in blocks, and link labels while it looks for their end;
 * deeper, the rest of the paragraph is text). Its default, 100, is the depth it recurses into at every
 * `[` of a run: 1 MB of `![` took 5.8 s against 0.56 s for ordinary text; at 20, 1.2 s (issue 25,
 * docs/architecture.md "Input and CPU budget"). No document nests lists or quotes 20 deep.
 */
export const MARKDOWN_MAX_NESTING = 20;

/**
 * One CommonMark parser (with tables and strikethrough) for everything Quire reads out of page
 * bodies: links, search sections and the JSON document. Raw HTML is read as text, never rendered.
 */
export const markdownParser = new MarkdownIt('default', { html: false, linkify: false });
// A preset option markdown-it's typings leave out of `Options`; read at every parse.
(markdownParser.options as { maxNesting: number }).maxNesting = MARKDOWN_MAX_NESTING;

export type Token = ReturnType<MarkdownIt['parse']>[number];

/** Bodies at least this long keep their tokens for the next parse of the same text (MEMO_MS). */
const MEMO_MIN_LENGTH = 16 * 1024;
const MEMO_MS = 2000;
let memo: { markdown: string; tokens: Token[] } | undefined;
let memoTimer: NodeJS.Timeout | undefined;

/**
 * The tokens of a body. A write reads a large body more than once in a row (search sections, then its
 * links twice): the last large body's tokens are kept for MEMO_MS, so it is parsed once. Callers only
 * read tokens.
 */
export function parseMarkdown(markdown: string): Token[] {
  if (memo && memo.markdown.length === markdown.length && memo.markdown === markdown) return memo.tokens;
  const tokens = markdownParser.parse(markdown, {});
  if (markdown.length >= MEMO_MIN_LENGTH) {
    memo = { markdown, tokens };
    if (memoTimer) clearTimeout(memoTimer);
    memoTimer = setTimeout(() => (memo = undefined), MEMO_MS);
    memoTimer.unref();
  }
  return tokens;
}

/** What the worker pool derived from a large body (`text-work/text-workers.ts` `prepareMarkdown`). */
interface Derived {
  links: MarkdownLink[];
  sections: Section[];
  /** The body's public document as JSON text (`markdownToDocument`). */
  document: string;
}
/** Derivations kept for the write that asked for them: at most this long, and this many characters of bodies and documents in all. */
const DERIVED_MS = 60_000;
const DERIVED_MAX_CHARS = 96 * 1024 * 1024;
const derived = new Map<string, { value: Derived; at: number; chars: number }>();
let derivedChars = 0;

/** Keeps what the worker pool derived from `markdown`, for `markdownLinks`, `splitSections` and `storedDocumentJson` of the same text. */
export function rememberDerived(markdown: string, value: Derived): void {
  const now = Date.now();
  if (derived.has(markdown)) return;
  const chars = markdown.length + value.document.length;
  derived.set(markdown, { value, at: now, chars });
  derivedChars += chars;
  // Oldest first: drop the expired ones and, past the bound, the oldest.
  for (const [key, entry] of derived) {
    if (key === markdown || (now - entry.at < DERIVED_MS && derivedChars <= DERIVED_MAX_CHARS)) break;
    derived.delete(key);
    derivedChars -= entry.chars;
  }
}

/** What the worker pool derived from `markdown`, if it still is kept. */
export function derivedOf(markdown: string): Derived | undefined {
  const entry = derived.get(markdown);
  return entry && Date.now() - entry.at < DERIVED_MS ? entry.value : undefined;
}

/** How page bodies refer to other content of the space: ids, so a renamed or moved page keeps its links. */
export const PAGE_REF = /^\/pages\/([\w-]+)(?:#(.*))?$/;
export const FILE_REF = /^\/files\/([\w-]+)$/;

export const pageRef = (pageId: string, anchor?: string) => `/pages/${pageId}${anchor ? `#${anchor}` : ''}`;
export const fileRef = (fileId: string) => `/files/${fileId}`;

export interface MarkdownLink {
  href: string;
  /** An image (`![alt](src)`) rather than a link. */
  image: boolean;
}

/** Every link and image destination of a body, in reading order (a large body's from the worker pool, when a write prepared it). */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const known = derivedOf(markdown);
  if (known) return known.links;
  const links: MarkdownLink[] = [];
  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === 'link_open') links.push({ href: token.attrGet('href') ?? '', image: false });
      else if (token.type === 'image') links.push({ href: token.attrGet('src') ?? '', image: true });
      if (token.children) walk(token.children);
    }
  };
  walk(parseMarkdown(markdown));
  return links.filter((link) => link.href.trim() !== '');
}

/** The readable text of inline tokens: what a person sees, without markup. */
export function inlineText(tokens: Token[] | null): string {
  if (!tokens) return '';
  return tokens
    .map((token) => {
      if (token.type === 'text' || token.type === 'code_inline' || token.type === 'html_inline') return token.content;
      if (token.type === 'softbreak' || token.type === 'hardbreak') return ' ';
      if (token.type === 'image') return inlineText(token.children);
      return '';
    })
    .join('');
}

export interface Section {
  /** Heading anchor (`getting-started`), unique in the body; '' for text before the first heading. */
  anchor: string;
  heading: string;
  body: string;
}

/**
 * A body split at its headings, each section with its heading and plain text. Anchors are slugs
 * of the headings, numbered on repeats (`setup`, `setup-1`) like most renderers do.
 */
export function splitSections(markdown: string): Section[] {
  const known = derivedOf(markdown);
  if (known) return known.sections;
  const sections: Section[] = [{ anchor: '', heading: '', body: '' }];
  const anchors = new Map<string, number>();
  const tokens = parseMarkdown(markdown);
  const append = (text: string) => {
    const current = sections[sections.length - 1];
    const trimmed = text.trim();
    if (trimmed) current.body = current.body ? `${current.body}\n${trimmed}` : trimmed;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open') {
      const heading = inlineText(tokens[i + 1]?.children ?? null).trim();
      const base = slugify(heading);
      const seen = anchors.get(base) ?? 0;
      anchors.set(base, seen + 1);
      sections.push({ anchor: seen ? `${base}-${seen}` : base, heading, body: '' });
      i += 2;
    } else if (token.type === 'inline') append(inlineText(token.children));
    else if (token.type === 'fence' || token.type === 'code_block' || token.type === 'html_block') append(token.content);
  }
  return sections.filter((section, index) => index > 0 || section.body !== '');
}
