import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import type jsep from 'jsep';
import { evaluateExpression, expressionProblem, parseExpression } from '../../common/expressions/expression';

/**
 * Adaptive content (section 2.12): the site's visitor schema, a JSON Schema draft-07 object of
 * boolean claims (plus an optional `unsigned` object of boolean claims), and the conditions of site
 * spaces and sections, which may only read the claims that schema declares. Pure: no database.
 */

export type JsonObject = Record<string, unknown>;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const BOOLEAN_CLAIM = {
  type: 'object',
  properties: { type: { const: 'boolean' }, description: { type: 'string' } },
  required: ['type', 'description'],
  additionalProperties: false,
};
const CLAIM_NAME = '^[A-Za-z_$][A-Za-z0-9_$]*$';

/** What a stored visitor schema may be: checked after the schema passed draft-07's own meta-schema. */
const VISITOR_SCHEMA = {
  type: 'object',
  properties: {
    $schema: { const: DRAFT_07 },
    $id: { type: 'string' },
    type: { const: 'object' },
    properties: {
      type: 'object',
      propertyNames: { pattern: CLAIM_NAME },
      properties: {
        unsigned: {
          type: 'object',
          properties: {
            type: { const: 'object' },
            description: { const: 'Unsigned claims of the site visitor.' },
            properties: { type: 'object', propertyNames: { pattern: CLAIM_NAME }, additionalProperties: BOOLEAN_CLAIM },
            additionalProperties: { const: false },
          },
          required: ['type', 'description', 'properties', 'additionalProperties'],
          additionalProperties: false,
        },
      },
      additionalProperties: BOOLEAN_CLAIM,
    },
    additionalProperties: { const: false },
  },
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
};

// Draft-07 is Ajv's default dialect; `strict` off so that a visitor schema's keywords are not refused
// for being unknown to Ajv's strict mode (the meta-schema decides what is valid). Visitor schemas are
// only checked (validateSchema + VISITOR_SCHEMA), never compiled: Ajv caches what it compiles by `$id`,
// so compiling every site's schema would grow the cache and refuse a second schema with the same `$id`.
const ajv = new Ajv({ strict: false, allErrors: true });
// Compiled on the first visitor schema checked, not at module load (every start and test file loads this module).
let visitorSchemaValidator: ValidateFunction | undefined;
const validateVisitorSchema = () => (visitorSchemaValidator ??= ajv.compile(VISITOR_SCHEMA));

const summarize = (prefix: string, errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 3)
    .map(
      (error) =>
        `${prefix}${error.instancePath} ${error.message ?? 'is invalid'}${error.params && 'allowedValue' in error.params ? ` (${JSON.stringify(error.params.allowedValue)})` : ''}`,
    )
    .join('; ');

/** Null when `schema` is a valid visitor schema, else a message naming the first problems. */
export function adaptiveSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'jsonSchema: must be an object';
  const dialect = (schema as JsonObject).$schema;
  if (dialect !== undefined && dialect !== DRAFT_07) return `jsonSchema/$schema must be ${DRAFT_07} (a JSON Schema draft-07)`;
  if (!ajv.validateSchema(schema as JsonObject)) return `jsonSchema is not a valid JSON Schema draft-07: ${summarize('jsonSchema', ajv.errors)}`;
  const validate = validateVisitorSchema();
  if (!validate(schema)) return `jsonSchema is not an object of boolean claims: ${summarize('jsonSchema', validate.errors)}`;
  return null;
}

/** A new site's schema: no claims. */
export const EMPTY_ADAPTIVE_SCHEMA: JsonObject = {
  $schema: DRAFT_07,
  type: 'object',
  properties: {},
  additionalProperties: false,
};

interface Claim {
  /** How a condition reads it: `visitor.claims.isBeta`, `visitor.claims.unsigned.isBeta`. */
  path: string;
  description: string;
}

/** The claims a visitor schema declares, signed first, each in declaration order. */
export function claimsOf(schema: JsonObject | null): Claim[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonObject>;
  const claims: Claim[] = [];
  for (const [name, claim] of Object.entries(properties)) {
    if (name !== 'unsigned') claims.push({ path: `visitor.claims.${name}`, description: String(claim.description ?? name) });
  }
  const unsigned = (properties.unsigned?.properties ?? {}) as Record<string, JsonObject>;
  for (const [name, claim] of Object.entries(unsigned)) {
    claims.push({ path: `visitor.claims.unsigned.${name}`, description: String(claim.description ?? name) });
  }
  return claims;
}

/** `template-conditions`: one condition per declared claim, true when the visitor has it. */
export function templateConditions(schema: JsonObject | null): { description: string; condition: string }[] {
  return claimsOf(schema).map((claim) => ({ description: claim.description, condition: `${claim.path} === true` }));
}

/**
 * Null when `condition` parses, else the syntax error. A condition is an expression, not a closed
 * list (issue 26, point 10): it may name claims the site's adaptive schema does not declare (absent,
 * so `undefined`, when evaluated). It is never executed as code: `conditionHolds` interprets it with
 * the shared interpreter (`common/expressions/`) over `{ visitor: { claims } }`; anything it does not
 * interpret (a call, a computed member) makes the condition false, so the item stays hidden.
 */
export function conditionProblem(condition: string): string | null {
  const problem = expressionProblem(condition);
  return problem === null ? null : `condition: ${problem}`;
}

/** A visitor's claims as conditions read them: signed claims, and `unsigned` (only the unsigned claims the schema declares). */
export type VisitorClaims = Record<string, unknown>;

/**
 * The claims a condition sees: the verified JWT's claims, plus under `unsigned` the visitor's
 * unsigned claims that the site's adaptive schema declares as unsigned (any other unsigned claim is
 * dropped: an unsigned claim is the visitor's word, so only the ones the site asked for count).
 */
export function visitorClaims(schema: JsonObject | null, signed: Record<string, unknown> | null, unsigned: Record<string, unknown> | null): VisitorClaims {
  const claims: VisitorClaims = { ...(signed ?? {}) };
  delete claims.unsigned;
  const declared = ((schema?.properties as Record<string, JsonObject> | undefined)?.unsigned?.properties ?? {}) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(unsigned ?? {})) if (Object.hasOwn(declared, name)) kept[name] = value;
  claims.unsigned = kept;
  return claims;
}

/**
 * Whether a site space or section with `condition` is shown to a visitor with `claims`: no condition
 * → shown; a condition is evaluated over the claims (an absent claim is `undefined`) and shows the
 * item when truthy. A condition that does not parse (stored before the rules changed) hides the item.
 */
export function conditionHolds(condition: string | null, claims: VisitorClaims): boolean {
  if (condition === null) return true;
  try {
    return Boolean(evaluateExpression(condition, { visitor: { claims } }));
  } catch {
    return false;
  }
}
const CLAIMS_ROOT = 'visitor.claims.';

/** `a.b.c` for a chain of plain (non-computed) members over an identifier; null otherwise. */
function memberPath(node: jsep.Expression): string | null {
  if (node.type === 'Identifier') return (node as jsep.Identifier).name;
  if (node.type !== 'MemberExpression') return null;
  const member = node as jsep.MemberExpression;
  if (member.computed || member.property.type !== 'Identifier') return null;
  const object = memberPath(member.object);
  return object === null ? null : `${object}.${(member.property as jsep.Identifier).name}`;
}

/**
 * The claims `condition` reads, as paths below `visitor.claims` (`plan`, `unsigned.beta`); `['']`
 * when it reads the claims object whole; `[]` when it reads none (or does not parse: it is then
 * false for everyone, whatever the claims).
 */
export function conditionClaimPaths(condition: string): string[] {
  const tree = parseExpression(condition);
  if (tree === null) return [];
  const paths = new Set<string>();
  const visit = (node: jsep.Expression): void => {
    if (node.type === 'Identifier' || node.type === 'MemberExpression') {
      const path = memberPath(node);
      if (path === 'visitor.claims') paths.add('');
      else if (path?.startsWith(CLAIMS_ROOT)) paths.add(path.slice(CLAIMS_ROOT.length));
      else if (path === null && node.type === 'MemberExpression') visit((node as jsep.MemberExpression).object);
      return;
    }
    for (const key of ['argument', 'left', 'right', 'test', 'consequent', 'alternate'] as const) {
      const child = (node as unknown as Record<string, unknown>)[key];
      if (child && typeof child === 'object') visit(child as jsep.Expression);
    }
  };
  visit(tree);
  return [...paths].sort();
}

/** The value at `path` (as `conditionClaimPaths` gives it) in `claims`; undefined when absent. */
export function claimAt(claims: VisitorClaims, path: string): unknown {
  if (path === '') return claims;
  let value: unknown = claims;
  for (const name of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
