import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import publicSchemas from '../../../openapi/public-schemas.json';
import type { Site } from './site.entity';

/**
 * Customization (section 2.13): how a published site looks. A site stores its settings (null: the
 * defaults below); a site space stores only what it overrides. Settings are checked against the
 * public `SiteCustomizationSettingsBase` schema (copied into openapi/public-schemas.json), so what
 * Quire stores is what the public description allows. Pure: no database.
 */

export type Settings = Record<string, unknown>;

/** The settings of a site nobody has customized: every member the public schema requires. */
export function defaultCustomization(site: Site): Settings {
  return {
    title: site.title,
    styling: {
      theme: 'clean',
      primaryColor: { light: '#346DDB', dark: '#346DDB' },
      infoColor: { light: '#787878', dark: '#787878' },
      successColor: { light: '#00C950', dark: '#00C950' },
      warningColor: { light: '#FE9A00', dark: '#FE9A00' },
      dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      codeTheme: { default: { light: 'default-light', dark: 'default-dark' }, openapi: { light: 'default-light', dark: 'default-dark' } },
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'system', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: true },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'pdf'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}

/** The site's settings: what it stored, or the defaults. */
export function siteCustomization(site: Site): Settings {
  return site.customization ?? defaultCustomization(site);
}

const isObject = (value: unknown): value is Settings => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `patch` applied to `base`: objects merge member by member, `null` removes a member (an override
 * reset), anything else replaces. Neither argument is changed.
 */
export function mergeSettings(base: Settings, patch: Settings): Settings {
  const merged: Settings = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (isObject(value) && isObject(merged[key])) merged[key] = mergeSettings(merged[key] as Settings, value);
    else merged[key] = value;
  }
  return merged;
}

/** A site space's settings: the site's, with its overrides. */
export function siteSpaceCustomization(site: Site, overrides: Settings | null): Settings {
  return overrides ? mergeSettings(siteCustomization(site), overrides) : siteCustomization(site);
}

let validateSettings: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (validateSettings) return validateSettings;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The public description's own formats, as its document defines them.
  ajv.addFormat('emoji', /^(?:[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*|\P{ASCII}\S*)?$/iu);
  ajv.addFormat('icon', /^[a-z0-9][a-z0-9-]*$/);
  ajv.addSchema({ $id: 'quire:public', components: { schemas: publicSchemas } });
  validateSettings = ajv.compile({ $ref: 'quire:public#/components/schemas/SiteCustomizationSettingsBase' });
  return validateSettings;
}

const describe = (error: ErrorObject) => `${error.instancePath.slice(1).replace(/\//g, '.') || 'body'}: ${error.message ?? 'is invalid'}`;

/** Null when `settings` are complete, valid customization settings; else the first problem, naming the field. */
export function customizationProblem(settings: unknown): string | null {
  if (!isObject(settings)) return 'body: must be a JSON object';
  const nulled = Object.keys(settings).find((key) => settings[key] === null);
  if (nulled !== undefined) return `${nulled}: must not be null`;
  const validate = validator();
  if (validate(settings)) return null;
  // A problem inside a field given says more than a member missing at the top.
  const errors = validate.errors ?? [];
  return describe(errors.find((error) => error.instancePath !== '') ?? (errors[0] as ErrorObject));
}
