import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';

/**
 * The public `JSONDocument` schema of `@gitbook/api` as an Ajv validator, loaded like
 * test/support/contract.ts loads the whole description.
 */
const SPEC_ID = 'https://public.api/openapi.json';
const validators = new Map<boolean, ValidateFunction>();

/**
 * The validator; `allErrors` collects every problem instead of stopping at the first. Both answer the same valid or
 * not; collecting every problem explores every branch of each union, several times slower, so
 * `expectPublicDocument` checks with the first and asks the second only for the message of a failure.
 */
export function documentValidator(allErrors = true): ValidateFunction {
  const known = validators.get(allErrors);
  if (known) return known;
  const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as Record<string, unknown>;
  spec.$id = SPEC_ID;
  const ajv = new Ajv2020({ strict: false, allErrors, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('emoji', /^(?:|[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*|\P{ASCII}\S*)$/iu);
  ajv.addFormat('icon', /^[a-z0-9][a-z0-9-]*$/);
  ajv.addSchema(spec);
  const validate = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/JSONDocument` });
  validators.set(allErrors, validate);
  return validate;
}

/** Throws with the first problems when `document` is not a public `JSONDocument`. */
export function expectPublicDocument(document: unknown): void {
  if (documentValidator(false)(document)) return;
  const check = documentValidator(true);
  if (!check(document)) {
    const problems = (check.errors ?? [])
      .filter((error) => error.keyword !== 'oneOf')
      .slice(0, 6)
      .map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
    throw new Error(`not a public JSONDocument:\n  ${problems.join('\n  ')}\n${JSON.stringify(document).slice(0, 1500)}`);
  }
  throw new Error(`not a public JSONDocument (the validator that collects every problem found none):\n${JSON.stringify(document).slice(0, 1500)}`);
}
