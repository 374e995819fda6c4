import Ajv, { ErrorObject } from 'ajv';
import jsep from 'jsep';

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
const validateVisitorSchema = ajv.compile(VISITOR_SCHEMA);

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
  if (!validateVisitorSchema(schema)) return `jsonSchema is not an object of boolean claims: ${summarize('jsonSchema', validateVisitorSchema.errors)}`;
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

/** The dotted path of a member expression (`visitor.claims.x`), or null when it is computed (`a[b]`) or rooted elsewhere. */
function memberPath(node: jsep.Expression): string | null {
  if (node.type === 'Identifier') return (node as jsep.Identifier).name;
  if (node.type !== 'MemberExpression') return null;
  const member = node as jsep.MemberExpression;
  if (member.computed || member.property.type !== 'Identifier') return null;
  const object = memberPath(member.object);
  return object === null ? null : `${object}.${(member.property as jsep.Identifier).name}`;
}

/**
 * Null when `condition` parses and reads only claims of `schema` (and literals), else the problem.
 * A condition is an expression over `visitor.claims.*` (e.g. `visitor.claims.isBeta && !visitor.claims.unsigned.trial`).
 */
export function conditionProblem(condition: string, schema: JsonObject | null): string | null {
  let tree: jsep.Expression;
  try {
    tree = jsep(condition);
  } catch (error) {
    return `condition: syntax error: ${(error as Error).message}`;
  }
  const declared = new Set(claimsOf(schema).map((claim) => claim.path));
  const problems: string[] = [];
  const walk = (node: jsep.Expression): void => {
    if (node.type === 'Literal') return;
    if (node.type === 'Identifier' || node.type === 'MemberExpression') {
      const path = memberPath(node);
      if (path === null) problems.push('computed member access is not supported');
      else if (!declared.has(path)) problems.push(`${path} is not a claim of the site's adaptive schema`);
      return;
    }
    if (node.type === 'BinaryExpression') {
      walk((node as jsep.BinaryExpression).left);
      walk((node as jsep.BinaryExpression).right);
      return;
    }
    if (node.type === 'UnaryExpression') return walk((node as jsep.UnaryExpression).argument);
    if (node.type === 'ConditionalExpression') {
      const conditional = node as jsep.ConditionalExpression;
      [conditional.test, conditional.consequent, conditional.alternate].forEach(walk);
      return;
    }
    problems.push(`${node.type} is not supported in a condition`);
  };
  walk(tree);
  return problems.length > 0 ? `condition: ${problems[0]}` : null;
}
