import { documentToMarkdown, markdownToDocument } from '../../../src/modules/content/document';
import { cpuMillis } from '../../support/cpu-time';

/**
 * Parsing and writing stay linear in the input, whatever it is: adversarial inputs of 64 KB and
 * 1 MB, where time that grew with the square of the size would take 256× longer for 16× the text.
 * The bound (40×, plus a second of CPU) leaves room for garbage collection.
 */
const CASES: Record<string, string> = {
  'liquid openers': '{%',
  'unclosed container lines': '{% hint style="info" %}\n',
  'mismatched closes': '{% tabs %}\n{% endhint %}\n',
  'unterminated tag attributes': '{% tab title="',
  'link openers': '[a](',
  'nested quotes': '> ',
  'nested lists': '- ',
  'unclosed details': '<details>\n',
  'inline math openers': '$$ ',
  'math lines': '$$\n',
  'mark tags': '<kbd>',
  'expression openers': '<code class="expression">',
  'unterminated html attributes': '<a x="',
  'figure lines': '<figure><img src="x">\n',
  'emphasis runs': '**a ',
  'backtick runs': '`a ``',
  'tags in list items': '- {% hint %}\n  > <details>\n',
};

/** The CPU the parse and the write took (ms), not wall time: a parse waiting for a core does not count. */
const time = (text: string): number => cpuMillis(() => documentToMarkdown(markdownToDocument(text)));

describe('document model: linear time', () => {
  it.each(Object.entries(CASES))('%s', (_name, unit) => {
    const small = unit.repeat(Math.ceil((64 * 1024) / unit.length));
    const large = unit.repeat(Math.ceil((1024 * 1024) / unit.length));
    time(small); // warm-up
    const smallTime = Math.max(time(small), 5);
    const largeTime = time(large);
    expect(largeTime).toBeLessThan(40 * smallTime + 1000);
  });
});
