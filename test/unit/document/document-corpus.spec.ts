import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentToMarkdown, markdownToDocument } from '../../../src/modules/content/document';
import { expectPublicDocument } from '../../support/document-schema';
import { withoutKeys } from './normalize';

/**
 * The corpus: one Markdown file of GitBook's dialect per block type and per combination, each with
 * the document it must give (`NAME.json`, reviewed by hand when written). Every expected document is
 * a public `JSONDocument`, and writing it back to Markdown and parsing again gives it back.
 */
const DIR = join(__dirname, '../../fixtures/documents');
const files = readdirSync(DIR)
  .filter((name) => name.endsWith('.md'))
  .map((name) => name.slice(0, -3));

// The public schema's button cannot validate: its data is an `allOf` whose second part has
// `additionalProperties: false` with only `ref` (or `action`), which rejects the `label` the first
// part requires. Buttons are parsed and written as GitBook does; only the schema check is skipped.
const SCHEMA_CONTRADICTIONS = new Set(['button']);

describe('document corpus', () => {
  it('covers every block type with a Markdown form', () => {
    const types = new Set<string>();
    const walk = (node: { type?: string; nodes?: unknown[]; fragments?: unknown[] }) => {
      if (node.type) types.add(node.type);
      [...(node.nodes ?? []), ...(node.fragments ?? [])].forEach((child) => walk(child as typeof node));
    };
    for (const name of files) walk(JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')));
    const expected = [
      'paragraph',
      'heading-1',
      'heading-2',
      'heading-3',
      'list-ordered',
      'list-unordered',
      'list-tasks',
      'list-item',
      'divider',
      'blockquote',
      'hint',
      'prompt',
      'if',
      'images',
      'image',
      'file',
      'drawing',
      'embed',
      'code',
      'code-line',
      'math',
      'expandable',
      'tabs',
      'tabs-item',
      'table',
      'swagger',
      'openapi-operation',
      'openapi-schemas',
      'openapi-webhook',
      'content-ref',
      'reusable-content',
      'stepper',
      'stepper-step',
      'columns',
      'column',
      'link',
      'emoji',
      'icon',
      'expression',
      'inline-math',
      'inline-image',
      'mention',
      'button',
    ];
    expect(expected.filter((type) => !types.has(type))).toEqual([]);
  });

  describe.each(files)('%s.md', (name) => {
    const markdown = readFileSync(join(DIR, `${name}.md`), 'utf8');
    const expected = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));

    it('parses to the expected document', () => {
      expect(markdownToDocument(markdown)).toEqual(expected);
    });

    if (!SCHEMA_CONTRADICTIONS.has(name)) {
      it('is a public JSONDocument', () => {
        expectPublicDocument(expected);
      });
    }

    it('round-trips through Markdown', () => {
      const written = documentToMarkdown(expected);
      expect(withoutKeys(markdownToDocument(written))).toEqual(withoutKeys(expected));
      // Writing is stable: the written Markdown is a fixed point.
      expect(documentToMarkdown(markdownToDocument(written))).toBe(written);
    });
  });

  it('keeps keys stable across parses of the same text and anchors in meta.id', () => {
    const markdown = readFileSync(join(DIR, 'headings.md'), 'utf8');
    const first = markdownToDocument(markdown);
    expect(markdownToDocument(markdown)).toEqual(first);
    expect(first.nodes.map((node) => node.meta?.id)).toEqual(['getting-started', 'setup', 'setup-1', 'deeper-than-three', 'setup-2']);
    expect(first.nodes.every((node) => node.data && !('id' in node.data))).toBe(true);
  });
});
