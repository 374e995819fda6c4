/**
 * The public document model (`JSONDocument`) and GitBook's Markdown dialect, both ways. Pure and
 * linear in the size of the input: see docs/modules/content.md for the table of types and syntax.
 */
export { markdownToDocument } from './to-document';
export { documentToMarkdown } from './to-markdown';
export type { JsonDocument, DocNode, DocText, DocLeaf, DocMark } from './document.types';
export { evaluateDocument, reusableContentRefs, MAX_INCLUDE_DEPTH, MAX_EVALUATED_NODES } from './evaluate';
export type { EvaluationContext, VariableValues } from './evaluate';
