import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { toJsonDocument } from '../../src/modules/content/markdown/json-document';
import { markdownLinks, splitSections } from '../../src/modules/content/markdown/markdown';
import { mapOutsideCode, withRelativeRefs } from '../../src/modules/content/markdown/markdown-refs';
import { relativePath } from '../../src/modules/content/tree/slugs';

describe('splitSections', () => {
  it('splits at headings, keeps the text before the first one, and numbers repeated anchors', () => {
    const sections = splitSections('Intro **text**.\n\n# Install\n\nRun `npm ci`.\n\n```sh\nnpm start\n```\n\n## Setup\n\n- one\n- two\n\n## Setup\n\nAgain.');
    expect(sections).toEqual([
      { anchor: '', heading: '', body: 'Intro text.' },
      { anchor: 'install', heading: 'Install', body: 'Run npm ci.\nnpm start' },
      { anchor: 'setup', heading: 'Setup', body: 'one\ntwo' },
      { anchor: 'setup-1', heading: 'Setup', body: 'Again.' },
    ]);
  });

  it('drops an empty lead section', () => {
    expect(splitSections('# Only\n\nbody')).toEqual([{ anchor: 'only', heading: 'Only', body: 'body' }]);
    expect(splitSections('')).toEqual([]);
  });
});

describe('markdownLinks', () => {
  it('lists links and images in reading order, not code', () => {
    expect(markdownLinks('[a](/pages/x) ![b](/files/y)\n\n`[c](d)`\n\n> [e](https://e.test)')).toEqual([
      { href: '/pages/x', image: false },
      { href: '/files/y', image: true },
      { href: 'https://e.test', image: false },
    ]);
  });
});

describe('withRelativeRefs', () => {
  const paths: Record<string, string> = { a: 'guide/config', b: 'api' };
  it('rewrites page refs relative to the page, outside code, and leaves unknown pages alone', () => {
    const markdown = 'See [config](/pages/a#top) and [api](/pages/b), [gone](/pages/zz).\n\n`[x](/pages/a)`\n\n```\n[y](/pages/a)\n```\n[z](/pages/a)';
    expect(withRelativeRefs(markdown, 'guide/install', (id) => paths[id])).toBe(
      'See [config](config#top) and [api](../api), [gone](/pages/zz).\n\n`[x](/pages/a)`\n\n```\n[y](/pages/a)\n```\n[z](config)',
    );
  });

  it('gives what the line-by-line walk gives when a body has no code (its one-pass shortcut)', () => {
    const lineByLine = (markdown: string) =>
      mapOutsideCode(markdown, (text) =>
        text.replace(/\]\(\/pages\/([A-Za-z0-9_-]+)(#[^)\s]*)?\)/g, (whole, id: string, anchor?: string) =>
          paths[id] ? `](${relativePath('guide/install', paths[id])}${anchor ?? ''})` : whole,
        ),
      );
    const bodies = [
      'no refs at all',
      '[a](/pages/a)\r\n[b](/pages/b#x y)\n[a](/pages/a#q"uote)\t[zz](/pages/zz)',
      '[split](/pages/a#an\nchor) [crlf](/pages/b#x\r)',
      '~~ not a fence ~~ [a](/pages/a) ~~',
      '](/pages/a) ](/pages/) [](/pages/b)',
    ];
    for (const body of bodies) expect(withRelativeRefs(body, 'guide/install', (id) => paths[id])).toBe(lineByLine(body));
  });
});

describe('toJsonDocument', () => {
  const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8'));
  spec.$id = 'https://public.api/openapi.json';
  const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { emoji: true, icon: true } });
  addFormats(ajv);
  ajv.addSchema(spec);
  const validate = ajv.compile({ $ref: 'https://public.api/openapi.json#/components/schemas/JSONDocument' });

  const markdown = [
    '# Title',
    'Some **bold**, *italic*, ~~gone~~ and `code` with a [page link](/pages/p1#anchor), a [file](/files/f1) and [out](https://example.com).',
    '',
    '![diagram](/files/f2)',
    '',
    '1. first',
    '2. second',
    '   - nested',
    '',
    '> quoted',
    '>',
    '> ```',
    '> code in quote',
    '> ```',
    '',
    '```ts',
    'const a = 1;',
    'const b = 2;',
    '```',
    '',
    '---',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '#### Deep heading',
  ].join('\n');

  it('produces a document the public JSONDocument schema accepts', () => {
    const document = toJsonDocument(markdown);
    const valid = validate(document);
    if (!valid) throw new Error(JSON.stringify(validate.errors?.slice(0, 5), null, 1));
  });

  it('maps each markdown construct to its block', () => {
    const nodes = toJsonDocument(markdown).nodes as { type: string; data?: Record<string, unknown> }[];
    expect(nodes.map((node) => node.type)).toEqual([
      'heading-1',
      'paragraph',
      'images',
      'list-ordered',
      'blockquote',
      'code',
      'divider',
      'paragraph',
      'paragraph',
      'heading-3',
    ]);
    expect(nodes[0].data).toEqual({ id: 'title' });
    expect(nodes[5].data).toEqual({ syntax: 'ts' });
    expect(JSON.stringify(nodes[1])).toContain('{"kind":"anchor","anchor":"anchor","page":"p1"}');
    expect(JSON.stringify(nodes[1])).toContain('{"kind":"file","file":"f1"}');
    expect(JSON.stringify(nodes[2])).toContain('{"ref":{"kind":"file","file":"f2"},"alt":"diagram"}');
  });
});
