import { trimChar, trimEndChar } from '../../src/common/text/trim';
import { leadingHeading, replaceLinkDestinations } from '../../src/modules/change-requests/authoring/markdown-scan';
import { rewriteLinks } from '../../src/modules/change-requests/authoring/tree-editor';
import { extractPage, htmlNestingDepth, MAX_HTML_NESTING, PageTooDeepError } from '../../src/modules/content/import/html-extract';
import { splitInlineCode } from '../../src/modules/content/markdown/markdown-refs';
import { slugify } from '../../src/modules/content/tree/slugs';
import { cpuMillis } from '../support/cpu-time';

// The patterns the scanners replace: kept here as the reference they must agree with on short texts.
const OLD_LINK = /(\]\()(<[^>]*>|[^)\s]+)((?:\s+"[^"]*")?\))/g;
const OLD_CODE = /(`+[^`]*`+)/;

/** A deterministic generator of short texts over the characters each pattern treats specially. */
function* texts(alphabet: string[], count: number, seed = 7): Generator<string> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < count; i++) {
    const length = next() % 14;
    let text = '';
    for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
    yield text;
  }
}

describe('linear scanners (issue 25)', () => {
  it('replaceLinkDestinations matches what the backtracking LINK pattern matched', () => {
    const alphabet = [']', '(', ')', '<', '>', ' ', '"', 'a', '](', '](<', '\t'];
    for (const text of texts(alphabet, 15000)) {
      const seen: string[] = [];
      const expected = text.replace(OLD_LINK, (whole, open: string, href: string, close: string) => {
        const raw = href.startsWith('<') ? href.slice(1, -1) : href;
        return `${open}{${raw}}${close}`;
      });
      const actual = replaceLinkDestinations(text, (href) => {
        seen.push(href);
        return `{${href}}`;
      });
      expect([text, actual]).toEqual([text, expected]);
      // Kept destinations leave the text as it was.
      expect(replaceLinkDestinations(text, () => undefined)).toBe(text);
    }
  });

  it('splitInlineCode splits as the inline-code pattern did', () => {
    for (const text of texts(['`', 'a', ' ', '``'], 8000)) expect([text, splitInlineCode(text)]).toEqual([text, text.split(OLD_CODE)]);
  });

  it('leadingHeading reads an ATX heading and its closing sequence', () => {
    expect(leadingHeading('# Title\n\nBody')).toEqual({ title: 'Title', length: 8 });
    expect(leadingHeading('\n\n#   Spaced out  ##  \r\nrest')).toEqual({ title: 'Spaced out', length: 24 });
    expect(leadingHeading('# ###')).toEqual({ title: '#', length: 5 });
    expect(leadingHeading('#NoSpace')).toBeNull();
    expect(leadingHeading('## Two')).toBeNull();
    expect(leadingHeading('Body')).toBeNull();
  });

  it('htmlNestingDepth counts element nesting in one pass, and a page nested too deep is refused before parsing', () => {
    expect(htmlNestingDepth('<html><body><div><p>a<p>b<ul><li>x<li>y</ul></div><br><img src=x /></body></html>')).toBe(4);
    expect(htmlNestingDepth('<!-- <div><div> --><script>"<div>"</script><div></div>')).toBe(1);
    const deep = `<html><body>${'<div><b>'.repeat(300_000)}x</body></html>`;
    expect(cpuMillis(() => expect(htmlNestingDepth(deep)).toBe(600_002))).toBeLessThan(1000);
    expect(() => extractPage(deep, 'https://docs.test/')).toThrow(PageTooDeepError);
    expect(() => extractPage(`<main>${'<div>'.repeat(MAX_HTML_NESTING - 1)}x</main>`, 'https://docs.test/')).not.toThrow();
    expect(cpuMillis(() => htmlNestingDepth('<a'.repeat(500_000)))).toBeLessThan(1000);
  });

  it('trims runs of one character from the ends', () => {
    expect(trimChar('--a-b--', '-')).toBe('a-b');
    expect(trimEndChar('a//', '/')).toBe('a');
    expect(slugify(`${'-'.repeat(5000)}Café Menu!!`)).toBe('cafe-menu');
  });

  it('stays linear on 1 MB of the inputs that stalled the patterns', () => {
    const mb = 1 << 20;
    const cases: [string, () => unknown][] = [
      ['[a]( repeated', () => rewriteLinks('[a]('.repeat(mb / 4), () => 'x')],
      ['](< repeated', () => rewriteLinks('](<'.repeat(mb / 3), () => 'x')],
      ['](a " repeated', () => rewriteLinks('](a "'.repeat(mb / 5), () => 'x')],
      ['backticks and text', () => splitInlineCode('`a'.repeat(mb / 2))],
      ['a long heading line', () => leadingHeading(`# a${' '.repeat(mb)}b`)],
      ['dashes then a letter', () => slugify(`${'-'.repeat(mb)}a${'-'.repeat(mb)}`)],
    ];
    for (const [name, run] of cases) {
      // CPU time, not wall time: a quadratic scan of these inputs takes seconds of it.
      const ms = cpuMillis(run);
      expect([name, ms < 1000]).toEqual([name, true]);
    }
  });
});
