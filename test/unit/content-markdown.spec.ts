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
