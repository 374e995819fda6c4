/**
 * Hand-written scanners for the markdown an author sends, each one pass over the text. They replace
 * regular expressions that backtracked on crafted input: `/(\]\()(<[^>]*>|[^)\s]+)((?:\s+"[^"]*")?\))/g`
 * (the link rewriter) retried the destination from every `](`, so `[a](` repeated cost quadratic time
 * (400 KB: 64 s with the event loop blocked); `^\s*#\s+(.+?)\s*#*\s*$` retried its tail at every
 * character of a long heading. docs/architecture.md, "Input and CPU budget".
 */

/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
export function isSpace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Replaces link and image destinations `](dest)`, `](<dest>)` and `](dest "title")`: `map` gets the
 * destination (without its angle brackets) and answers the new one, or undefined to keep it. Matches
 * exactly what `/(\]\()(<[^>]*>|[^)\s]+)((?:\s+"[^"]*")?\))/g` matched, in linear time: the next `>`,
 * the end of a bare destination and the end of a title are remembered, not searched for again from
 * every `](`.
 */
export function replaceLinkDestinations(text: string, map: (href: string) => string | undefined): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  // Next `>` at or after a position, and end of the run of neither `)` nor space: both only move forward.
  let nextGt = -2;
  let bareEnd = -1;
  const tails = new Map<number, number>();
  /** Where `(?:\s+"[^"]*")?\)` starting at `at` ends, or -1. */
  const tail = (at: number): number => {
    if (at >= n) return -1;
    if (text.charCodeAt(at) === 0x29) return at + 1;
    const known = tails.get(at);
    if (known !== undefined) return known;
    let i = at;
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    let end = -1;
    if (i > at && i < n && text.charCodeAt(i) === 0x22) {
      const close = text.indexOf('"', i + 1);
      if (close !== -1 && text.charCodeAt(close + 1) === 0x29) end = close + 2;
    }
    tails.set(at, end);
    return end;
  };
  let from = 0;
  for (;;) {
    const open = text.indexOf('](', from);
    if (open === -1) break;
    const start = open + 2;
    let destEnd = -1;
    let end = -1;
    if (start < n && text.charCodeAt(start) === 0x3c) {
      if (nextGt !== -1 && nextGt <= start) nextGt = text.indexOf('>', start + 1);
      if (nextGt !== -1) {
        end = tail(nextGt + 1);
        if (end !== -1) destEnd = nextGt + 1;
      }
    }
    if (end === -1) {
      if (bareEnd < start) {
        bareEnd = start;
        while (bareEnd < n && text.charCodeAt(bareEnd) !== 0x29 && !isSpace(text.charCodeAt(bareEnd))) bareEnd++;
      }
      if (bareEnd > start) {
        end = tail(bareEnd);
        if (end !== -1) destEnd = bareEnd;
      }
    }
    if (end === -1) {
      from = open + 1;
      continue;
    }
    const href = text.slice(start, destEnd);
    const next = map(href.startsWith('<') ? href.slice(1, -1) : href);
    if (next !== undefined) {
      out += text.slice(copied, start) + next + text.slice(destEnd, end);
      copied = end;
    }
    from = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A leading ATX heading of level 1: the first non-blank line reads `# Title` (closing `#`s and spaces
 * dropped). Answers the title and the length of the text up to and including that line's end.
 */
export function leadingHeading(body: string): { title: string; length: number } | null {
  const n = body.length;
  let i = 0;
  while (i < n && isSpace(body.charCodeAt(i))) i++;
  if (body.charCodeAt(i) !== 0x23) return null;
  const newline = body.indexOf('\n', i);
  const lineEnd = newline === -1 ? n : newline;
  let contentEnd = lineEnd;
  if (contentEnd > i && body.charCodeAt(contentEnd - 1) === 0x0d) contentEnd--;
  let start = i + 1;
  while (start < contentEnd && isSpace(body.charCodeAt(start))) start++;
  if (start === i + 1 || start === contentEnd) return null;
  // The title is the shortest that leaves `\s*#*\s*` after it: strip spaces, then `#`s, then spaces.
  let end = contentEnd;
  while (end > start && isSpace(body.charCodeAt(end - 1))) end--;
  while (end > start && body.charCodeAt(end - 1) === 0x23) end--;
  while (end > start && isSpace(body.charCodeAt(end - 1))) end--;
  if (end === start) end = start + 1;
  return { title: body.slice(start, end), length: newline === -1 ? n : newline + 1 };
}
