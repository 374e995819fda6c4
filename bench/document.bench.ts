/* Document model benchmark: parse cost per MB of GitBook-dialect Markdown (markdownToDocument) and
 * write cost (documentToMarkdown), at 10 KB and 1 MB, so linear time shows as the same ms/MB; and the
 * cost of evaluating the parsed document (evaluateDocument: every mode on, includes expanded).
 * Goal: ≤ 50 ms per MB to parse. Pure CPU, no database. `BENCH_ONLY=document npm run bench`, or
 * standalone: `node -r @swc-node/register bench/document.bench.ts`. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentToMarkdown, evaluateDocument, markdownToDocument, type EvaluationContext } from '../src/modules/content/document';

// The corpus of the document model's tests: every block type, inline and mark, and their combinations.
const DIR = join(__dirname, '..', 'test', 'fixtures', 'documents');
const corpus = readdirSync(DIR)
  .filter((name) => name.endsWith('.md') && name !== 'malformed.md')
  .sort()
  .map((name) => readFileSync(join(DIR, name), 'utf8'))
  .join('\n\n');

/** Every mode on; any included content is a short paragraph with an expression. */
const INCLUDED = markdownToDocument('Included for <code class="expression">space.vars.product</code>.');
const EVALUATION: EvaluationContext = {
  evaluated: true,
  dereferenced: true,
  spaceVariables: { product: 'Quire', version: '2.0' },
  pageVariables: { edition: 'Pro' },
  claims: { plan: 'pro' },
  spaceId: 'space',
  reusableContent: () => INCLUDED,
};

function sized(bytes: number): string {
  let text = '';
  while (text.length < bytes) text += `${corpus}\n\n`;
  return text.slice(0, text.lastIndexOf('\n\n', bytes) + 2);
}

/** Median ms per MB of `run` over `text`, repeated until about a second has passed (at least 5 times). */
function perMegabyte(text: string, run: (text: string) => unknown): number {
  const times: number[] = [];
  const started = performance.now();
  while (times.length < 5 || performance.now() - started < 1000) {
    const start = performance.now();
    run(text);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return (times[Math.floor(times.length / 2)] / text.length) * 1024 * 1024;
}

function main(): void {
  const lines = ['Document model (pure CPU, median of ≥ 5 runs):'];
  for (const [label, bytes] of [
    ['10 KB', 10 * 1024],
    ['1 MB', 1024 * 1024],
  ] as const) {
    const text = sized(bytes);
    const document = markdownToDocument(text);
    for (let i = 0; i < 3; i++) documentToMarkdown(markdownToDocument(text)); // warm-up
    const parse = perMegabyte(text, markdownToDocument);
    const write = perMegabyte(text, () => documentToMarkdown(document));
    const evaluate = perMegabyte(text, () => evaluateDocument(document, EVALUATION));
    lines.push(
      `  ${label.padEnd(6)} (${text.length} chars, ${document.nodes.length} top-level blocks): parse ${parse.toFixed(1)} ms/MB, write ${write.toFixed(1)} ms/MB, evaluate ${evaluate.toFixed(1)} ms/MB`,
    );
  }
  console.log(lines.join('\n'));
}

main();
