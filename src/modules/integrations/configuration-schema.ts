import Ajv, { type ValidateFunction } from 'ajv';
import type { IntegrationConfigurationSchema } from './integration.read-model';

/**
 * The manifest's `configurations.account/space/site` are JSON schemas (object schemas with
 * `properties` and `required`). Quire compiles them with ajv when an integration is published (a
 * schema that does not compile is refused then, not at install time) and validates every
 * installation's configuration against them. GitBook-specific keywords (`completion_url`, `action`…)
 * are tolerated; `additionalProperties` stays as the author wrote it.
 */
const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true });
const cache = new Map<string, ValidateFunction>();

function compile(schema: IntegrationConfigurationSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile({ type: 'object', ...schema });
    if (cache.size > 500) cache.clear();
    cache.set(key, validate);
  }
  return validate;
}

/** Why a manifest's configuration schema cannot be used, or null. */
export function schemaProblem(schema: unknown): string | null {
  if (schema === undefined) return null;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be an object';
  try {
    compile(schema as IntegrationConfigurationSchema);
    return null;
  } catch (error) {
    return (error as Error).message.slice(0, 300);
  }
}

/** Validates (and fills defaults into a copy of) a configuration; returns the problems, or the configuration. */
export function validateConfiguration(
  schema: IntegrationConfigurationSchema | undefined,
  configuration: Record<string, unknown>,
): { ok: true; value: Record<string, unknown> } | { ok: false; problems: string } {
  if (!schema) return { ok: true, value: configuration };
  const value = structuredClone(configuration);
  const validate = compile(schema);
  if (validate(value)) return { ok: true, value };
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `configuration${e.instancePath.replace(/\//g, '.')}: ${e.message ?? 'is invalid'}${e.params && 'missingProperty' in e.params ? ` (${String(e.params.missingProperty)})` : ''}`,
    )
    .join('; ');
  return { ok: false, problems };
}

/**
 * Fields a manifest marks write-only (`writeOnly: true` on the property, JSON Schema's own annotation;
 * the public `IntegrationConfigurationSchema` has no marker of its own): API keys and the like that an
 * admin types in. They reach the script (its `environment`), never an API answer, admins included.
 */
export function writeOnlyFields(schema: IntegrationConfigurationSchema | undefined): string[] {
  if (!schema || typeof schema.properties !== 'object' || schema.properties === null) return [];
  return Object.entries(schema.properties)
    .filter(([, property]) => typeof property === 'object' && property !== null && property.writeOnly === true)
    .map(([name]) => name);
}

/** `configuration` as the API shows it: without the write-only fields. */
export function readableConfiguration(schema: IntegrationConfigurationSchema | undefined, configuration: Record<string, unknown>): Record<string, unknown> {
  const hidden = writeOnlyFields(schema);
  if (hidden.length === 0) return configuration;
  const shown = { ...configuration };
  for (const name of hidden) delete shown[name];
  return shown;
}

/**
 * A new configuration sent through the API, with the write-only fields it leaves out kept from the
 * stored one: a caller who never sees them can change the others without wiping them (send the field
 * to replace it; send `null` to clear it).
 */
export function withStoredWriteOnly(
  schema: IntegrationConfigurationSchema | undefined,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...incoming };
  for (const name of writeOnlyFields(schema)) {
    if (!(name in merged) && name in stored) merged[name] = stored[name];
    else if (merged[name] === null) delete merged[name];
  }
  return merged;
}
