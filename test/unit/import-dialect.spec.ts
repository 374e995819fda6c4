import { markdownToDocument } from '../../src/modules/content/document';
import type { DocNode } from '../../src/modules/content/document';
import { htmlToMarkdown } from '../../src/modules/content/import/html-to-markdown';

/** Website import speaks GitBook's dialect: small HTML fixtures of common generators → the document's blocks. */
const convert = (html: string) =>
  htmlToMarkdown(
    html,
    (href) => href,
    (src) => src,
  );
const blocksOf = (html: string) => markdownToDocument(convert(html)).nodes;
const types = (html: string) => blocksOf(html).map((node) => node.type);

describe('website import → dialect blocks', () => {
  it('turns HTML tables into table blocks, inline marks kept', () => {
    const [table] = blocksOf(
      '<table><thead><tr><th>Name</th><th>Type</th></tr></thead><tbody><tr><td><strong>id</strong></td><td>a | b</td></tr><tr><td>x</td><td><code>y</code></td></tr></tbody></table>',
    );
    expect(table.type).toBe('table');
    expect(Object.values(table.data?.definition as Record<string, { title: string }>).map((column) => column.title)).toEqual(['Name', 'Type']);
    expect(Object.keys(table.data?.records as object)).toHaveLength(2);
    expect(JSON.stringify(table.fragments)).toContain('"type":"bold"');
    // A table without a head uses its first row.
    expect(types('<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>')).toEqual(['table']);
  });

  it.each([
    ['MkDocs', '<div class="admonition warning"><p class="admonition-title">Warning</p><p>Careful.</p></div>', 'warning'],
    ['GitHub', '<div class="markdown-alert markdown-alert-caution"><p class="markdown-alert-title">Caution</p><p>Careful.</p></div>', 'danger'],
    [
      'Docusaurus',
      '<div class="theme-admonition theme-admonition-tip alert alert--success"><div class="admonitionHeading_x">tip</div><div class="admonitionContent_y"><p>Careful.</p></div></div>',
      'success',
    ],
    ['aside', '<aside class="note"><p>Careful.</p></aside>', 'info'],
    ['Starlight', '<aside class="starlight-aside starlight-aside--danger"><p class="starlight-aside__title">Danger</p><p>Careful.</p></aside>', 'danger'],
  ])('turns %s admonitions into hints with a style', (_name, html, style) => {
    const [hint] = blocksOf(html);
    expect(hint.type).toBe('hint');
    expect(hint.data?.style).toBe(style);
    expect(JSON.stringify(hint)).toContain('Careful.');
    expect(JSON.stringify(hint)).not.toMatch(/"text":"(?:Warning|Caution|tip|Danger)"/);
  });

  it('turns <details><summary> into expandables', () => {
    const [expandable] = blocksOf('<details open><summary>More <em>info</em></summary><p>Hidden body</p><ul><li>item</li></ul></details>');
    expect(expandable.type).toBe('expandable');
    expect(expandable.data?.defaultExpanded).toBe(true);
    expect(JSON.stringify(expandable)).toContain('Hidden body');
  });

  it('turns <figure><img><figcaption> into images with captions', () => {
    const [images] = blocksOf('<figure><img src="/files/abc" alt="Diagram" width="320"><figcaption>The <b>flow</b></figcaption></figure>');
    expect(images.type).toBe('images');
    const image = (images.nodes as DocNode[])[0];
    expect(image.data).toMatchObject({ ref: { kind: 'file', file: 'abc' }, alt: 'Diagram', width: 320 });
    expect(JSON.stringify(image.fragments)).toContain('The flow');
  });

  it.each([
    [
      'Docusaurus',
      '<div class="codeBlockContainer"><div class="codeBlockTitle_a">app.js</div><div class="codeBlockContent"><pre><code class="language-js">run();</code></pre></div></div>',
    ],
    ['MkDocs', '<div class="language-js highlight"><span class="filename">app.js</span><pre><span></span><code>run();</code></pre></div>'],
    ['rehype-pretty-code', '<div data-rehype-pretty-code-title="">app.js</div><pre><code class="language-js">run();</code></pre>'],
    ['a code figure', '<figure><figcaption>app.js</figcaption><pre><code class="language-js">run();</code></pre></figure>'],
    ['pre[data-title]', '<pre data-title="app.js"><code class="language-js">run();</code></pre>'],
  ])('turns %s code titles into {%% code title %%}', (_name, html) => {
    const [code] = blocksOf(html);
    expect(code.type).toBe('code');
    expect(code.data).toMatchObject({ title: 'app.js' });
    expect(JSON.stringify(code)).toContain('run();');
  });

  it('keeps plain code blocks and their language', () => {
    const [code] = blocksOf('<pre><code class="language-python">print(1)</code></pre>');
    expect(code).toMatchObject({ type: 'code', data: { syntax: 'python' } });
    expect(code.data?.title).toBeUndefined();
  });
});
