import Ajv2020, { _, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { contractFormats } from './contract-formats';

/**
 * Contract checks against the public API description (`@gitbook/api`'s spec/openapi.json):
 * a response body must match the schema the description gives for the operation and status.
 */
type Json = Record<string, any>;

const SPEC_ID = 'https://public.api/openapi.json';
const SPEC_FILE = require.resolve('@gitbook/api/spec/openapi.json');
const FORMATS_MODULE = require.resolve('./contract-formats');

/**
 * Compiled validators are kept on disk as code (ajv's standalone output), shared by every test file and run:
 * parsing the 1.7 MB description and compiling a validator cost each file a few hundred milliseconds of CPU.
 * The cache lives in the system's temporary folder, as jest's transform cache does, so a fresh clone or `npm ci`
 * (which empties `node_modules`) on the same machine still finds it. A validator's file is named by the content
 * of what decides its code: these files' source, the description, ajv's versions, and the operation. Its code
 * names nothing by absolute path (it is run with this file's `require`), so any checkout can run it.
 */
const CACHE_DIR = join(tmpdir(), `quire-contract-${process.getuid?.() ?? 'user'}`);
const cacheSalt = (() => {
  const versions = ['ajv', 'ajv-formats'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  const hash = createHash('sha256');
  for (const part of [readFileSync(__filename), readFileSync(FORMATS_MODULE), readFileSync(SPEC_FILE), ...versions]) hash.update(part).update('\0');
  return hash.digest('hex');
})();
const cacheFile = (key: string) => join(CACHE_DIR, `${createHash('sha256').update(cacheSalt).update(key).digest('hex').slice(0, 32)}.cjs`);

/**
 * The cache is code this process runs: only read from a folder of our own that nobody else may write (another user
 * could have made a folder of that name in the shared temporary folder first). Otherwise validators are compiled.
 */
function cacheIsOurs(): boolean {
  try {
    const folder = statSync(CACHE_DIR);
    return folder.isDirectory() && folder.uid === process.getuid?.() && (folder.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Runs a cached validator's code as a module whose `require` is this file's (for `./contract-formats` and ajv's runtime). */
function loadCached(file: string): ValidateFunction | null {
  const module = { exports: {} as unknown };
  new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(require, module, module.exports);
  return module.exports as ValidateFunction | null;
}

/** The description and an Ajv holding it, built only when a validator is not cached yet. */
let loaded: { spec: Json; ajv: Ajv2020; operations: Map<string, { path: string; method: string; operation: Json }> } | undefined;
function description(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Json;
  spec.$id = SPEC_ID;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: true,
    code: { source: true, formats: _`require("./contract-formats").contractFormats` },
  });
  addFormats(ajv);
  // Registering the description's own formats keeps Ajv from warning.
  ajv.addFormat('emoji', contractFormats.emoji);
  ajv.addFormat('icon', contractFormats.icon);
  ajv.addSchema(spec);
  const operations = new Map<string, { path: string; method: string; operation: Json }>();
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (operation && typeof operation === 'object' && 'operationId' in operation) operations.set(operation.operationId, { path, method, operation });
    }
  }
  return (loaded = { spec, ajv, operations });
}

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction | undefined>();

/**
 * The validator `key` names: from this file's map, else from the disk cache, else built by `build` (undefined when
 * the description has no schema there) and written to the cache as code (or as `null`).
 */
function cachedValidator(key: string, build: () => { schemaRef: string } | undefined): ValidateFunction | undefined {
  if (compiled.has(key)) return compiled.get(key);
  const file = cacheFile(key);
  let validate: ValidateFunction | undefined;
  if (cacheIsOurs() && existsSync(file)) {
    validate = loadCached(file) ?? undefined;
  } else {
    const target = build();
    validate = target && description().ajv.compile({ $ref: target.schemaRef });
    const code = validate ? standaloneCode(description().ajv, validate) : 'module.exports = null;\n';
    mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
    if (cacheIsOurs()) {
      // Written aside then renamed: two workers compiling the same validator never read half a file.
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, code);
      renameSync(temporary, file);
    }
  }
  compiled.set(key, validate);
  return validate;
}

/** The validator of the JSON body of `operationId` answering `status`, or undefined when the description has none. */
function validatorFor(operationId: string, status: number): ValidateFunction | undefined {
  return cachedValidator(`${operationId} ${status}`, () => {
    const { spec, operations } = description();
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
    return { schemaRef: `${SPEC_ID}${ref}/content/${pointer('application/json')}/schema` };
  });
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
  const validate = cachedValidator(`#schema ${name}`, () => {
    if (!description().spec.components.schemas[name]) throw new Error(`${name} is not a schema of the public description`);
    return { schemaRef: `${SPEC_ID}#/components/schemas/${pointer(name)}` };
  }) as ValidateFunction;
  if (!validate(value)) {
    const problems = (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '(value)'} ${error.message} ${JSON.stringify(error.params)}`);
    throw new Error(`value does not match the public schema ${name}:\n  ${problems.join('\n  ')}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
  }
}
