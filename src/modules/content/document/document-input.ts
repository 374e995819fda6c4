import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import publicSchemas from '../../../../openapi/public-schemas.json';
import type { JsonDocument } from './document.types';
import { documentToMarkdown } from './to-markdown';

/**
 * A `JSONDocument` given by a writer (`{"document": …}` where a page body is taken): bounded, checked
 * against the public schema, then written as the dialect's Markdown, which is what is stored (the
 * stored document is that Markdown parsed again, so it is in the form every read answers).
 *
 * The schema is the public one as committed in `openapi/public-schemas.json` (`npm run openapi:write`
 * copies it from `@gitbook/api`, a devDependency not there at runtime), read like the site
 * customization validator reads its schema.
 */

/** Nodes, texts, leaves and fragments a written document may hold in all (a 1 MB page is ~50,000). */
export const MAX_DOCUMENT_NODES = 200_000;
/** Nesting of `nodes`/`fragments`/`leaves` a written document may have (the dialect's Markdown parser follows 20 levels of blocks). */
export const MAX_DOCUMENT_DEPTH = 24;

export class DocumentInputError extends Error {
  /** `path` is where the problem is, in JSON Pointer form below the document (`/nodes/2/data/style`), '' for the document itself. */
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path.slice(1).replace(/\//g, '.') || '(document)'}: ${problem}`);
  }
}

let validate: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (validate) return validate;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  // The public description's own formats, as its document defines them.
  ajv.addFormat('emoji', /^(?:[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*|\P{ASCII}\S*)?$/iu);
  ajv.addFormat('icon', /^[a-z0-9][a-z0-9-]*$/);
  ajv.addSchema({ $id: 'quire:public', components: { schemas: publicSchemas } });
  validate = ajv.compile({ $ref: 'quire:public#/components/schemas/JSONDocument' });
  return validate;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The size of a document, counted without recursion before anything recursive (the schema check,
 * the writer) sees it: throws past MAX_DOCUMENT_NODES or MAX_DOCUMENT_DEPTH. Returns the node count.
 */
export function measureDocument(document: unknown): number {
  if (!isObject(document)) throw new DocumentInputError('', 'must be an object');
  let count = 0;
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: document, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop() as { value: unknown; depth: number; path: string };
    if (!isObject(value)) continue;
    for (const field of ['nodes', 'fragments', 'leaves'] as const) {
      const children = value[field];
      if (!Array.isArray(children)) continue;
      if (depth + 1 > MAX_DOCUMENT_DEPTH) throw new DocumentInputError(`${path}/${field}`, `nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
      count += children.length;
      if (count > MAX_DOCUMENT_NODES) throw new DocumentInputError(`${path}/${field}`, `the document has more than ${MAX_DOCUMENT_NODES} nodes`);
      children.forEach((child, i) => stack.push({ value: child, depth: depth + 1, path: `${path}/${field}/${i}` }));
    }
  }
  return count;
}

/**
 * The most telling problem of a failed check: the schema's alternatives (`oneOf`) each report why
 * they did not match, and the one that got deepest into the value is the alternative meant.
 */
function firstProblem(errors: ErrorObject[]): DocumentInputError {
  const depth = (error: ErrorObject) =>
    error.instancePath.split('/').length + (error.keyword === 'required' || error.keyword === 'additionalProperties' ? 1 : 0);
  const telling = errors.filter((error) => error.keyword !== 'oneOf' && error.keyword !== 'anyOf');
  const best = (telling.length > 0 ? telling : errors).reduce((a, b) => (depth(b) > depth(a) ? b : a));
  if (best.keyword === 'enum') {
    // Each alternative allows its own values (one schema per mark type, per block type): say them all.
    const allowed = new Set(
      telling
        .filter((error) => error.keyword === 'enum' && error.instancePath === best.instancePath)
        .flatMap((error) => (error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value))),
    );
    return new DocumentInputError(best.instancePath, `must be one of ${[...allowed].join(', ')}`);
  }
  if (best.keyword === 'required')
    return new DocumentInputError(best.instancePath, `must have ${(best.params as { missingProperty: string }).missingProperty}`);
  return new DocumentInputError(best.instancePath, best.message ?? 'is invalid');
}

/** Throws DocumentInputError when `document` is not a public `JSONDocument` (measured first: see `measureDocument`). */
export function checkDocument(document: unknown): asserts document is JsonDocument {
  measureDocument(document);
  const check = validator();
  if (!check(document)) throw firstProblem(check.errors ?? []);
}

/** The Markdown a valid written document is stored as; throws DocumentInputError for an invalid one. */
export function writtenDocumentMarkdown(document: unknown): string {
  checkDocument(document);
  return documentToMarkdown(document);
}
