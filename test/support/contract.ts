import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import type { Response } from 'supertest';

/**
 * Contract checks against the public API description (`@gitbook/api`'s spec/openapi.json):
 * a response body must match the schema the description gives for the operation and status.
 */
type Json = Record<string, any>;

const SPEC_ID = 'https://public.api/openapi.json';
const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as Json;
spec.$id = SPEC_ID;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
// The description's own formats: an emoji is a codepoint in hex ("1f389") or the character itself
// (empty when a space has none), an icon is a name ("gear"). Registering them keeps Ajv from warning.
ajv.addFormat('emoji', /^(?:|[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*|\P{ASCII}[^\s]*)$/iu);
ajv.addFormat('icon', /^[a-z0-9][a-z0-9-]*$/);
ajv.addSchema(spec);

const operations = new Map<string, { path: string; method: string; operation: Json }>();
for (const [path, item] of Object.entries(spec.paths as Json)) {
  for (const [method, operation] of Object.entries(item as Json)) {
    if (operation && typeof operation === 'object' && 'operationId' in operation) operations.set(operation.operationId, { path, method, operation });
  }
}

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();

/** The validator of the JSON body of `operationId` answering `status`, or undefined when the description has none. */
function validatorFor(operationId: string, status: number): ValidateFunction | undefined {
  const key = `${operationId} ${status}`;
  if (compiled.has(key)) return compiled.get(key);
  const found = operations.get(operationId);
  if (!found) throw new Error(`operationId ${operationId} is not in the public description`);
  const responses = found.operation.responses as Json;
  const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => candidate in responses);
  if (!statusKey) return undefined;
  let response = responses[statusKey] as Json;
  let ref = `#/paths/${pointer(found.path, found.method)}/responses/${statusKey}`;
  if (response.$ref && !response.content) {
    ref = response.$ref as string;
    response = ref
      .split('/')
      .slice(1)
      .reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  if (!response.content?.['application/json']?.schema) return undefined;
  const validate = ajv.compile({ $ref: `${SPEC_ID}${ref}/content/${pointer('application/json')}/schema` });
  compiled.set(key, validate);
  return validate;
}

/** Fails the test when the response body does not match the public schema of the operation. */
export function expectContract(res: Response, operationId: string): void {
  const validate = validatorFor(operationId, res.status);
  if (!validate) {
    if (res.status >= 400) {
      expectErrorEnvelope(res, res.status);
      return;
    }
    throw new Error(`The public description has no JSON response ${res.status} for ${operationId}`);
  }
  if (!validate(res.body)) {
    const problems = (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`);
    throw new Error(
      `${operationId} ${res.status} does not match the public schema:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(res.body).slice(0, 2000)}`,
    );
  }
}

/** Every failure answers `{"error":{"code":<status>,"message":"..."}}`. */
export function expectErrorEnvelope(res: Response, status: number, message?: RegExp): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: { code: status, message: expect.any(String) } },
  });
  if (message) expect(res.body.error.message).toMatch(message);
}

/**
 * Fails the test when `value` does not match the public component schema `name` (for responses of
 * Quire's own routes, such as links lists, whose items are public shapes).
 */
export function expectPublicSchema(value: unknown, name: string): void {
  const key = `#schema ${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${pointer(name)}` });
    compiled.set(key, validate);
  }
  if (!validate(value)) {
    const problems = (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '(value)'} ${error.message} ${JSON.stringify(error.params)}`);
    throw new Error(`value does not match the public schema ${name}:\n  ${problems.join('\n  ')}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
  }
}
