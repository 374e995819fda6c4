import fc from 'fast-check';
import { documentToMarkdown, markdownToDocument } from '../../../src/modules/content/document';
import { expectPublicDocument } from '../../support/document-schema';
import { normalize } from './normalize';

/**
 * Round trips as properties (fast-check): random documents built from the public schema →
 * Markdown → the same document (up to keys, anchors and how leaves are split); random dialect
 * Markdown → document → Markdown → the same document.
 */
type Json = Record<string, unknown>;

const text = (value: string, marks: Json[] = []) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks }] });
const block = (type: string, data: Json, nodes?: unknown[], extra: Json = {}) => ({
  object: 'block',
  type,
  data,
  ...(nodes ? { nodes, isVoid: false } : { isVoid: true }),
  ...extra,
});
const inline = (type: string, data: Json) => ({ object: 'inline', type, data, isVoid: true });

// ---- random documents --------------------------------------------------------------------------

const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzAZ0189éß'), minLength: 1, maxLength: 6 });
const punctuation = fc.constantFrom(
  '*',
  '_',
  '[',
  ']',
  '<',
  '>',
  '~',
  '$',
  '$$',
  '|',
  '&',
  '#',
  '{%',
  '%}',
  '!',
  '-',
  '.',
  '(',
  ')',
  '`',
  '"',
  "'",
  '\\',
  '+',
  '1.',
  '=',
  '&amp;',
  ':',
);
const plain = fc
  .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 2, arbitrary: fc.constant(' ') }, { weight: 2, arbitrary: punctuation }), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(''));
const color = fc.constantFrom('default', 'red', 'blue', '$primary', '$info');
const mark = fc.oneof(
  fc.constantFrom('bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript').map((type) => ({ object: 'mark', type })),
  fc.record({ text: color, background: color }).map((data) => ({ object: 'mark', type: 'color', data })),
);
const leaf = fc
  .record({ text: plain, marks: fc.uniqueArray(mark, { maxLength: 3, selector: (item) => item.type }) })
  .map((value) => ({ object: 'leaf', ...value }));
const textNode = fc.array(leaf, { minLength: 1, maxLength: 4 }).map((leaves) => ({ object: 'text', leaves }));
const href = fc.oneof(
  word.map((value) => ({ kind: 'url', url: `https://example.com/${value}?q=1&r=(2)` })),
  word.map((value) => ({ kind: 'page', page: `page${value}` })),
  fc.tuple(word, word).map(([page, anchor]) => ({ kind: 'anchor', page: `p${page}`, anchor })),
  word.map((value) => ({ kind: 'anchor', anchor: value })),
  word.map((value) => ({ kind: 'file', file: `f${value}` })),
);
const inlineNode = fc.oneof(
  fc
    .record({ ref: href, label: fc.array(textNode, { minLength: 1, maxLength: 2 }) })
    .map(({ ref, label }) => ({ object: 'inline', type: 'link', data: { ref }, nodes: label, isVoid: false })),
  word.map((formula) => inline('inline-math', { formula: `${formula}^2` })),
  word.map((name) => inline('expression', { expression: `space.vars.${name} < 2 && "x"` })),
  fc.constantFrom('1f389', '2705').map((code) => inline('emoji', { code })),
  fc.constantFrom('github', 'rocket').map((icon) => inline('icon', { icon })),
  fc
    .record({ ref: href, alt: plain })
    .map(({ ref, alt }) => inline('inline-image', { ref: ref.kind === 'file' ? ref : { kind: 'url', url: 'https://example.com/i.png' }, alt: alt.trim() })),
  word.map((user) => inline('mention', { ref: { kind: 'user', user } })),
  textNode.map((nodes) => ({
    object: 'inline',
    type: 'annotation',
    nodes: [nodes],
    isVoid: false,
    data: {},
    fragments: [{ object: 'fragment', type: 'annotation-body', nodes: [block('paragraph', {}, [text('note')])] }],
  })),
);
// Paragraph contents start and end with text: a paragraph of images alone is an images block.
const inlines = fc.tuple(textNode, fc.array(fc.tuple(inlineNode, textNode), { maxLength: 3 })).map(([first, rest]) => [first, ...rest.flat()]);
const oneLineInlines = inlines;
const paragraph = inlines.map((nodes) => block('paragraph', {}, nodes));
const heading = fc.tuple(fc.constantFrom(1, 2, 3), oneLineInlines).map(([level, nodes]) => block(`heading-${level}`, {}, nodes));
const codeBlock = fc
  .record({
    lines: fc.array(fc.oneof(plain, fc.constantFrom('```', '{% endhint %}', '$$', '    indented', '')), { minLength: 1, maxLength: 4 }),
    syntax: fc.option(fc.constantFrom('js', 'python', 'sh'), { nil: undefined }),
    title: fc.option(
      plain.map((value) => value.trim() || 'title'),
      { nil: undefined },
    ),
    lineNumbers: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ lines, syntax, title, lineNumbers }) =>
    block(
      'code',
      Object.fromEntries(Object.entries({ syntax, title, lineNumbers }).filter(([, value]) => value !== undefined)),
      lines.map((line) => block('code-line', {}, [text(line)])),
    ),
  );
const math = plain.map((formula) => block('math', { formula: formula.split('$').join('') || 'x' }));
const divider = fc.constant(block('divider', {}));
const image = fc.record({ alt: plain, caption: fc.option(inlines, { nil: undefined }), file: word }).map(({ alt, caption, file }) =>
  block('image', { ref: { kind: 'file', file }, alt }, undefined, {
    fragments: caption ? [{ object: 'fragment', fragment: 'caption', nodes: [block('paragraph', {}, caption)] }] : [],
  }),
);
const images = fc.array(image, { minLength: 1, maxLength: 3 }).map((nodes) => block('images', {}, nodes));
const voids = fc.oneof(
  word.map((file) => block('file', { ref: { kind: 'file', file } })),
  word.map((value) => block('embed', { url: `https://example.com/${value}` })),
  href.map((ref) => block('content-ref', { ref })),
  word.map((id) => block('reusable-content', { ref: { kind: 'reusable-content', reusableContent: id } })),
  word.map((path) => block('swagger', { ref: { kind: 'url', url: 'https://example.com/openapi.json' }, path: `/${path}`, method: 'get' })),
  word.map((path) => block('openapi-operation', { ref: { kind: 'openapi', spec: 'petstore' }, path: `/${path}`, method: 'post' })),
  fc
    .array(word, { minLength: 1, maxLength: 3 })
    .map((schemas) => block('openapi-schemas', { ref: { kind: 'openapi', spec: 'petstore' }, schemas, grouped: false })),
  word.map((name) => block('openapi-webhook', { ref: { kind: 'openapi', spec: 'petstore' }, name, method: 'post' })),
  word.map((file) => block('drawing', { ref: { kind: 'file', file } })),
);
const table = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }))
  .chain(([columns, rows]) =>
    fc.record({
      titles: fc.array(fc.tuple(word, fc.constantFrom('left', 'center', 'right')), { minLength: columns, maxLength: columns }),
      cells: fc.array(fc.array(oneLineInlines, { minLength: columns, maxLength: columns }), { minLength: rows, maxLength: rows }),
    }),
  )
  .map(({ titles, cells }) => {
    const definition: Json = {};
    titles.forEach(([title, textAlignment], index) => (definition[`c${index}`] = { id: `c${index}`, title, type: 'text', textAlignment }));
    const records: Json = {};
    const fragments: Json[] = [];
    cells.forEach((row, r) => {
      const values: Json = {};
      row.forEach((nodes, c) => {
        values[`c${c}`] = `r${r}c${c}`;
        fragments.push({ object: 'fragment', fragment: `r${r}c${c}`, nodes: [block('paragraph', {}, nodes)] });
      });
      records[`r${r}`] = { orderIndex: `a${r}`, values };
    });
    return {
      object: 'block',
      type: 'table',
      isVoid: true,
      data: { view: { type: 'grid', columns: titles.map((_, index) => `c${index}`), hideHeader: false }, records, definition },
      fragments,
    };
  });

// Depth is shared by every recursive choice, so nesting stays shallow (the first choice of each is a leaf).
const deep = { depthSize: 'small', maxDepth: 3, depthIdentifier: 'document' } as const;

const { tree } = fc.letrec((tie) => ({
  essentials: fc.oneof(deep, paragraph, heading, divider, tie('list')),
  list: fc
    .tuple(
      fc.constantFrom('list-unordered', 'list-ordered', 'list-tasks'),
      fc.array(fc.tuple(paragraph, fc.array(fc.oneof(deep, paragraph, codeBlock, tie('list')), { maxLength: 2 }), fc.boolean()), {
        minLength: 1,
        maxLength: 3,
      }),
    )
    .map(([type, items]) =>
      block(
        type as string,
        {},
        (items as [unknown, unknown[], boolean][]).map(([first, rest, checked]) =>
          block('list-item', type === 'list-tasks' ? { checked } : {}, [first, ...rest]),
        ),
      ),
    ),
  quote: fc.array(fc.oneof(paragraph, heading), { minLength: 1, maxLength: 2 }).map((nodes) => block('blockquote', {}, nodes)),
  hint: fc
    .tuple(fc.constantFrom('info', 'warning', 'danger', 'success'), fc.array(fc.oneof(deep, tie('essentials'), table), { maxLength: 3 }))
    .map(([style, nodes]) => block('hint', { style }, nodes)),
  tabItemBody: fc.array(fc.oneof(deep, tie('essentials'), codeBlock, tie('hint'), images, math), { minLength: 1, maxLength: 3 }),
  tabs: fc.array(fc.tuple(plain, tie('tabItemBody')), { minLength: 1, maxLength: 3 }).map((items) =>
    block(
      'tabs',
      {},
      (items as [string, unknown[]][]).map(([title, nodes]) => block('tabs-item', { title }, nodes)),
    ),
  ),
  stepper: fc.array(tie('tabItemBody'), { minLength: 1, maxLength: 3 }).map((steps) =>
    block(
      'stepper',
      {},
      (steps as unknown[][]).map((nodes) => block('stepper-step', {}, nodes)),
    ),
  ),
  columns: fc
    .array(fc.tuple(fc.option(fc.integer({ min: 10, max: 90 }), { nil: undefined }), tie('tabItemBody')), { minLength: 1, maxLength: 2 })
    .map((columns) =>
      block(
        'columns',
        {},
        (columns as [number | undefined, unknown[]][]).map(([width, nodes]) =>
          block('column', width === undefined ? {} : { width: { unit: '%', value: width } }, nodes),
        ),
      ),
    ),
  expandable: fc
    .tuple(oneLineInlines, fc.array(fc.oneof(deep, tie('essentials'), codeBlock, images), { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([title, body, open]) => ({
      object: 'block',
      type: 'expandable',
      isVoid: true,
      data: open ? { defaultExpanded: true } : {},
      fragments: [
        { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [block('paragraph', {}, title)] },
        { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: body },
      ],
    })),
  top: fc.oneof(
    deep,
    paragraph,
    tie('essentials'),
    tie('quote'),
    tie('hint'),
    codeBlock,
    math,
    images,
    voids,
    table,
    tie('tabs'),
    tie('stepper'),
    tie('columns'),
    tie('expandable'),
  ),
  tree: fc.array(
    fc.oneof(
      deep,
      tie('top'),
      fc
        .tuple(fc.constantFrom('visitor.claims.pro', 'space.vars.beta == true'), fc.array(tie('top'), { maxLength: 2, depthIdentifier: 'document' }))
        .map(([expression, nodes]) => block('if', { expression }, nodes as unknown[])),
    ),
    {
      maxLength: 5,
    },
  ),
}));

/**
 * Runs per property: sized for CI on 2 cores (allErrors validation of the public schema dominates);
 * QUIRE_PROPERTY_RUNS=<factor> multiplies them for a deeper local search.
 */
const runs = (n: number) => Math.max(1, Math.round(n * Number(process.env.QUIRE_PROPERTY_RUNS ?? 1)));

const documents = tree.map((nodes) => ({ object: 'document', data: {}, nodes }));

describe('document ↔ Markdown round trip (fast-check)', () => {
  it('generated documents are public JSONDocuments (the generator follows the schema)', () => {
    fc.assert(
      fc.property(documents, (document) => {
        expectPublicDocument(document);
      }),
      { numRuns: runs(40) },
    );
  });

  it('document → Markdown → the same document (up to keys)', () => {
    fc.assert(
      fc.property(documents, (document) => {
        const markdown = documentToMarkdown(document as never);
        const back = markdownToDocument(markdown);
        expectPublicDocument(back);
        expect(normalize(back)).toEqual(normalize(document));
      }),
      { numRuns: runs(60) },
    );
  });

  // ---- random dialect Markdown -------------------------------------------------------------

  const fragment = fc.oneof(
    plain,
    fc.constantFrom(
      '# Title',
      '## Sub *title*',
      '- item',
      '  - nested',
      '1. first',
      '- [x] task',
      '> quote',
      '***',
      '```js',
      '```',
      '$$',
      'a^2',
      '{% hint style="info" %}',
      '{% endhint %}',
      '{% tabs %}',
      '{% tab title="A" %}',
      '{% endtab %}',
      '{% endtabs %}',
      '{% stepper %}',
      '{% step %}',
      '{% endstep %}',
      '{% endstepper %}',
      '{% columns %}',
      '{% column width="50%" %}',
      '{% endcolumn %}',
      '{% endcolumns %}',
      '{% code title="a.js" %}',
      '{% endcode %}',
      '{% if visitor.claims.pro %}',
      '{% endif %}',
      '{% embed url="https://example.com" %}',
      '{% content-ref url="/pages/p1" %}',
      '{% endcontent-ref %}',
      '{% file src="/files/f1" %}',
      '{% include ".gitbook/includes/rc.md" %}',
      '{% openapi-operation spec="s" path="/p" method="get" %}',
      '<details>',
      '<summary>More</summary>',
      '</details>',
      '<figure><img src="/files/f2" alt="x"><figcaption><p>cap</p></figcaption></figure>',
      '| a | b |',
      '| --- | :-: |',
      '| **x** | <kbd>y</kbd> |',
      'text <mark style="color:red;">red</mark> <sup>up</sup> $$x$$ <code class="expression">space.vars.v</code>',
      '[link](/pages/p2#anchor) ![img](/files/f3)',
      '<span data-gb-custom-inline data-tag="emoji" data-code="1f389">🎉</span> <i class="fa-github">:github:</i>',
      '',
      '',
    ),
  );
  const dialect = fc
    .array(fc.tuple(fc.constantFrom('', '', '', '  ', '- ', '> '), fragment), { maxLength: 25 })
    .map((lines) => lines.map(([prefix, line]) => prefix + line).join('\n'));

  it('Markdown → document → Markdown → the same document, always a public JSONDocument', () => {
    fc.assert(
      fc.property(dialect, (markdown) => {
        const document = markdownToDocument(markdown);
        expectPublicDocument(document);
        const written = documentToMarkdown(document);
        const again = markdownToDocument(written);
        expect(normalize(again)).toEqual(normalize(document));
        expect(documentToMarkdown(again)).toBe(written);
      }),
      { numRuns: runs(150) },
    );
  });
});
