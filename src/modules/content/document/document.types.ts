/**
 * The public document model (`JSONDocument`, `DocumentBlock*`, `DocumentInline*`, `DocumentMark*`
 * of `@gitbook/api`), typed loosely: the shapes are checked against the public schema in tests,
 * and the parser and serializer only read the fields they know.
 */
export interface DocMark {
  object: 'mark';
  type: MarkType;
  data?: { text: string; background: string };
}

export type MarkType = 'bold' | 'italic' | 'strikethrough' | 'code' | 'keyboard' | 'superscript' | 'subscript' | 'color';

export interface DocLeaf {
  object: 'leaf';
  text: string;
  marks: DocMark[];
}

export interface DocText {
  object: 'text';
  key?: string;
  leaves: DocLeaf[];
}

/** A node's `data`/`meta`: their shape depends on the node type and is checked against the public schema in tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read field by field, per node type
export type NodeData = Record<string, any>;

export interface DocNode {
  object: 'block' | 'inline';
  type: string;
  key?: string;
  data?: NodeData;
  meta?: NodeData;
  nodes?: (DocNode | DocText)[];
  fragments?: DocFragment[];
  isVoid?: boolean;
}

export interface DocFragment {
  object: 'fragment';
  key?: string;
  fragment: string;
  type?: string;
  nodes: DocNode[];
}

// A type (not an interface) so that it reads as the plain JSON object the presenters return.
export type JsonDocument = {
  object: 'document';
  data: Record<string, unknown>;
  nodes: DocNode[];
};

export type DocChild = DocNode | DocText;

/** Marks in the order the parser lists them and the serializer nests them (outermost last). */
export const MARK_ORDER: MarkType[] = ['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript', 'color'];

/** Block types grouped as the public schema allows them inside each container. */
const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'];
const set = (...types: string[]) => new Set([...ESSENTIALS, ...types]);

export const ALLOWED = {
  document: set(
    'blockquote',
    'hint',
    'prompt',
    'images',
    'file',
    'drawing',
    'embed',
    'code',
    'math',
    'expandable',
    'tabs',
    'table',
    'swagger',
    'openapi-operation',
    'openapi-schemas',
    'openapi-webhook',
    'content-ref',
    'integration',
    'reusable-content',
    'stepper',
    'if',
    'columns',
    'updates',
  ),
  blockquote: set('blockquote'),
  hint: set('embed', 'integration', 'table'),
  'list-item': set('code', 'hint', 'blockquote', 'math', 'table'),
  'tabs-item': set('content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'prompt', 'blockquote', 'math', 'integration'),
  'stepper-step': set('content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'prompt', 'blockquote', 'math', 'integration', 'expandable'),
  column: set(
    'images',
    'code',
    'hint',
    'prompt',
    'content-ref',
    'drawing',
    'embed',
    'file',
    'integration',
    'math',
    'blockquote',
    'table',
    'expandable',
    'stepper',
  ),
  'expandable-body': set('file', 'images', 'code', 'table', 'hint', 'prompt', 'blockquote', 'reusable-content', 'integration'),
  update: set('content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'prompt', 'blockquote', 'math', 'integration', 'tabs', 'expandable'),
  'table-cell': new Set(['paragraph']),
};
