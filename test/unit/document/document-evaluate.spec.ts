import {
  evaluateDocument,
  markdownToDocument,
  MAX_EVALUATED_NODES,
  MAX_INCLUDE_DEPTH,
  type EvaluationContext,
  type JsonDocument,
} from '../../../src/modules/content/document';
import { expectPublicDocument } from '../../support/document-schema';

/** `evaluateDocument`: expressions, `if` blocks and reusable contents, evaluated or left for the reader. */

const expr = (source: string) => `<code class="expression">${source}</code>`;
const include = (id: string) => `{% include ".gitbook/includes/${id}.md" %}`;

/** Every text of a document, in order (texts and void inlines' sources), to compare answers simply. */
function texts(document: JsonDocument): string {
  const out: string[] = [];
  const walk = (node: Record<string, any>) => {
    if (node.object === 'text') out.push(node.leaves.map((leaf: { text: string }) => leaf.text).join(''));
    else if (node.type === 'expression') out.push(`{${node.data.expression}}`);
    else if (node.type === 'reusable-content') out.push(`[include ${node.data.ref.reusableContent}]`);
    else if (node.type === 'if') out.push(`[if ${node.data.expression}]`);
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) walk(child);
  };
  document.nodes.forEach(walk);
  return out.join('|');
}

function keys(document: JsonDocument): string[] {
  const out: string[] = [];
  const walk = (node: Record<string, any>) => {
    if (node.key !== undefined) out.push(node.key);
    for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) walk(child);
  };
  document.nodes.forEach(walk);
  return out;
}

const evaluate = (markdown: string, context: Partial<EvaluationContext>, contents: Record<string, string> = {}) => {
  const documents = new Map(Object.entries(contents).map(([id, body]) => [id, markdownToDocument(body)]));
  const source = markdownToDocument(markdown);
  const before = JSON.stringify(source);
  const result = evaluateDocument(source, {
    evaluated: false,
    dereferenced: false,
    spaceId: 'space1',
    reusableContent: (id) => documents.get(id),
    ...context,
  });
  // Pure: the document it was given (possibly shared, cached) is left as it was.
  expect(JSON.stringify(source)).toBe(before);
  expectPublicDocument(result);
  return result;
};

describe('evaluateDocument: expressions', () => {
  const page = `Version ${expr('space.vars.version')} of ${expr('page.vars.product')}.`;
  const variables = { spaceVariables: { version: '2.1', product: 'Space product' }, pageVariables: { product: 'Quire' } };

  it('leaves expressions when not evaluated', () => {
    expect(texts(evaluate(page, variables))).toBe('Version |{space.vars.version}| of |{page.vars.product}|.');
  });

  it('substitutes space and page variables, the page winning, into one text', () => {
    const result = evaluate(page, { ...variables, evaluated: true });
    expect(texts(result)).toBe('Version 2.1 of Quire.');
    expect(result.nodes[0].nodes).toHaveLength(1);
  });

  it('falls back to the space variable under page.vars, and an unknown variable is the empty text', () => {
    const result = evaluate(`${expr('page.vars.version')}/${expr('space.vars.missing')}/${expr('page.vars.missing')}`, { ...variables, evaluated: true });
    expect(texts(result)).toBe('2.1//');
  });

  it('evaluates deterministic expressions with deterministic-only, leaves visitor ones', () => {
    const result = evaluate(`${expr('space.vars.version')} ${expr('visitor.claims.name')}`, {
      ...variables,
      evaluated: 'deterministic-only',
      claims: { name: 'Ada' },
    });
    expect(texts(result)).toBe('2.1 |{visitor.claims.name}');
  });

  it('evaluates visitor expressions with evaluated=true and claims, not without claims', () => {
    const markdown = `Hello ${expr('visitor.claims.name')}`;
    expect(texts(evaluate(markdown, { evaluated: true, claims: { name: 'Ada' } }))).toBe('Hello Ada');
    expect(texts(evaluate(markdown, { evaluated: true }))).toBe('Hello |{visitor.claims.name}');
  });

  it('gives numbers and booleans as text, and never reaches prototypes or runs calls', () => {
    const result = evaluate(`${expr('space.vars.n')} ${expr('space.vars.b')} ${expr('space.vars.constructor')} ${expr('alert(1)')} ${expr('(((')}`, {
      evaluated: true,
      spaceVariables: { n: 3, b: false },
    });
    expect(texts(result)).toBe('3 false   ');
  });
});

describe('evaluateDocument: if blocks', () => {
  const markdown = [
    '{% if visitor.claims.plan == "pro" %}',
    'Pro only.',
    '{% endif %}',
    '',
    '{% if space.vars.beta %}',
    'Beta.',
    '{% endif %}',
    '',
    'Always.',
  ].join('\n');
  const context = { spaceVariables: { beta: true } };

  it('keeps every if block when not evaluated', () => {
    expect(texts(evaluate(markdown, context))).toBe('[if visitor.claims.plan == "pro"]|Pro only.|[if space.vars.beta]|Beta.|Always.');
  });

  it('with deterministic-only, leaves the visitor-dependent one and decides the other', () => {
    expect(texts(evaluate(markdown, { ...context, evaluated: 'deterministic-only', claims: { plan: 'pro' } }))).toBe(
      '[if visitor.claims.plan == "pro"]|Pro only.|Beta.|Always.',
    );
  });

  it('with evaluated=true and claims, keeps or drops by the claims', () => {
    expect(texts(evaluate(markdown, { ...context, evaluated: true, claims: { plan: 'pro' } }))).toBe('Pro only.|Beta.|Always.');
    expect(texts(evaluate(markdown, { ...context, evaluated: true, claims: { plan: 'free' } }))).toBe('Beta.|Always.');
    expect(texts(evaluate(markdown, { spaceVariables: { beta: false }, evaluated: true, claims: {} }))).toBe('Always.');
  });

  it('with evaluated=true and no claims at hand, leaves the visitor-dependent one', () => {
    expect(texts(evaluate(markdown, { ...context, evaluated: true }))).toBe('[if visitor.claims.plan == "pro"]|Pro only.|Beta.|Always.');
  });
});

describe('evaluateDocument: reusable contents', () => {
  it('expands includes only when dereferenced, evaluating their expressions too', () => {
    const contents = { shared: `Shared ${expr('space.vars.version')}` };
    const markdown = `Before\n\n${include('shared')}\n\nAfter`;
    expect(texts(evaluate(markdown, { evaluated: true, spaceVariables: { version: '9' } }, contents))).toBe('Before|[include shared]|After');
    for (const dereferenced of [true, 'reusable-contents'] as const) {
      expect(texts(evaluate(markdown, { dereferenced, evaluated: true, spaceVariables: { version: '9' } }, contents))).toBe('Before|Shared 9|After');
    }
    expect(texts(evaluate(markdown, { dereferenced: 'reusable-contents' }, contents))).toBe('Before|Shared |{space.vars.version}|After');
  });

  it('keeps keys unique when the same content is included twice', () => {
    const result = evaluate(`${include('a')}\n\n${include('a')}`, { dereferenced: true }, { a: '# Title\n\nBody with **bold**' });
    expect(texts(result)).toBe('Title|Body with bold|Title|Body with bold');
    const all = keys(result);
    expect(all.length).toBeGreaterThan(6);
    expect(new Set(all).size).toBe(all.length);
  });

  it('leaves unknown contents, contents of other spaces and contents that do not fit where they stand', () => {
    const other = { object: 'document', data: {}, nodes: [] };
    expect(texts(evaluate(include('nope'), { dereferenced: true }))).toBe('[include nope]');
    const source = markdownToDocument(include('a'));
    source.nodes[0].data = { ref: { kind: 'reusable-content', reusableContent: 'a', space: 'elsewhere' } };
    const result = evaluateDocument(source, { evaluated: false, dereferenced: true, spaceId: 'space1', reusableContent: () => other as JsonDocument });
    expect(result.nodes[0].type).toBe('reusable-content');
    // An expandable's body does not allow tabs: a content holding tabs stays a reference there.
    const inExpandable = ['<details>', '<summary>More</summary>', '', include('tabs'), '', '</details>'].join('\n');
    const tabs = '{% tabs %}\n{% tab title="A" %}\nA\n{% endtab %}\n{% endtabs %}';
    expect(texts(evaluate(inExpandable, { dereferenced: true }, { tabs }))).toBe('More|[include tabs]');
    expect(texts(evaluate(inExpandable, { dereferenced: true }, { tabs: 'Plain' }))).toBe('More|Plain');
  });

  it('stops cycles at the first repeat', () => {
    const contents = { a: `A\n\n${include('b')}`, b: `B\n\n${include('a')}` };
    expect(texts(evaluate(include('a'), { dereferenced: true }, contents))).toBe('A|B|[include a]');
    expect(texts(evaluate(include('self'), { dereferenced: true }, { self: `Me\n\n${include('self')}` }))).toBe('Me|[include self]');
  });

  it(`stops ${MAX_INCLUDE_DEPTH} includes deep`, () => {
    const contents: Record<string, string> = {};
    for (let i = 0; i < 10; i++) contents[`c${i}`] = `L${i}\n\n${include(`c${i + 1}`)}`;
    const expected = [...Array.from({ length: MAX_INCLUDE_DEPTH }, (_, i) => `L${i}`), `[include c${MAX_INCLUDE_DEPTH}]`].join('|');
    expect(texts(evaluate(include('c0'), { dereferenced: true }, contents))).toBe(expected);
  });

  it('stays bounded when every level includes the next many times', () => {
    // 20 includes per level, 5 levels: 20^5 copies unbounded; the node budget stops it.
    const contents: Record<string, string> = {};
    for (let i = 0; i < 6; i++) contents[`f${i}`] = Array.from({ length: 20 }, () => include(`f${i + 1}`)).join('\n\n') + '\n\nleaf';
    const documents = new Map(Object.entries(contents).map(([id, body]) => [id, markdownToDocument(body)]));
    const result = evaluateDocument(markdownToDocument(include('f0')), { evaluated: false, dereferenced: true, reusableContent: (id) => documents.get(id) });
    const count = keys(result).length;
    expect(count).toBeGreaterThan(MAX_EVALUATED_NODES / 2);
    expect(count).toBeLessThan(MAX_EVALUATED_NODES * 2);
    expect(texts(result)).toContain('[include f');
  });
});
