import { AppConfig } from '../../config/app-config';
import type { SpaceJson } from '../space-model/space.presenter';
import { integrationUrls } from './integration.presenter';
import { readableConfiguration } from './configuration-schema';
import type { Integration } from './integration.entity';
import type { IntegrationInstallation } from './integration-installation.entity';
import type { CallerRoles } from './integration.policy';
import type { InstallationRow, TargetInstallationRow } from './installation.read-model';

/** Who is reading: the caller's roles, and the installation whose script token the caller holds, if any. */
export interface ConfigurationReader {
  roles: CallerRoles;
  scriptInstallationId?: string;
  /** The script's own `environment` (not an API answer): the whole configuration, write-only fields included. */
  environment?: boolean;
}

/** The reader of a script call's `environment` (`runtime/environment.presenter.ts`). */
export const SCRIPT_ENVIRONMENT: ConfigurationReader = { roles: new Map(), environment: true };

/**
 * Configuration is read by those who administer the installation (admins of its organization) and by
 * the installation's own script; everyone else (guests, readers, members below admin) sees `{}` (the
 * public schemas require the field). Fields the manifest marks `writeOnly` are never shown, admins and
 * the script included (the script receives them in its `environment`, presented with `SCRIPT_ENVIRONMENT`).
 */
export function shownConfiguration(
  reader: ConfigurationReader,
  installation: IntegrationInstallation,
  schema: Integration['configurations']['account'],
  configuration: Record<string, unknown>,
): Record<string, unknown> {
  if (reader.environment) return configuration;
  const administers = reader.roles.get(installation.organizationId) === 'admin' || reader.scriptInstallationId === installation.id;
  return administers ? readableConfiguration(schema, configuration) : {};
}

/** `IntegrationInstallation` (section 2.22). */
export interface InstallationJson {
  id: string;
  status: string;
  space_selection: string;
  site_selection: string;
  spaces: number;
  configuration: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  urls: { location: string; app: string; publicEndpoint: string; publicContentEndpoint: string };
  externalIds: string[];
  target: { organization: string };
  [SCOPES_FIELD]: InstallationScopesJson;
}

/**
 * Quire's extension of `IntegrationInstallation`: the scopes the installation was granted (what its
 * script tokens carry), those the integration asks for now, and whether an admin's consent is
 * needed (`required` while the integration asks for a scope not granted: `POST …/installations/{id}/scopes`).
 */
export const SCOPES_FIELD = 'x-quire-scopes';
export interface InstallationScopesJson {
  granted: string[];
  requested: string[];
  consent: 'granted' | 'required';
}

/** The OpenAPI schema of `x-quire-scopes` (declared on the installation routes' answers). */
export const INSTALLATION_SCOPES_SCHEMA = {
  type: 'object',
  description: 'Quire: scopes granted to the installation, scopes the integration asks for, and whether an admin must consent to more',
  properties: {
    granted: { type: 'array', items: { type: 'string' } },
    requested: { type: 'array', items: { type: 'string' } },
    consent: { type: 'string', enum: ['granted', 'required'] },
  },
  required: ['granted', 'requested', 'consent'],
};

/** `IntegrationSpaceInstallation` / `IntegrationSiteInstallation`. */
export interface TargetInstallationJson {
  integration: string;
  installation: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
  urls: { location: string; publicEndpoint: string; publicContentEndpoint: string };
  space?: string | SpaceJson;
  site?: string;
}

export function presentInstallation(integration: Integration, row: InstallationRow, config: AppConfig, reader: ConfigurationReader): InstallationJson {
  const { installation } = row;
  const base = integrationUrls(integration.name, config);
  const location = `${base.location}/installations/${installation.id}`;
  return {
    id: installation.id,
    status: installation.status,
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection,
    spaces: row.spaces,
    configuration: shownConfiguration(reader, installation, integration.configurations.account, installation.configuration),
    createdAt: installation.createdAt.toISOString(),
    updatedAt: installation.updatedAt.toISOString(),
    urls: { location, app: location, publicEndpoint: `${location}/public/`, publicContentEndpoint: `${location}/public/` },
    externalIds: installation.externalIds,
    target: { organization: installation.organizationId },
    [SCOPES_FIELD]: {
      granted: installation.grantedScopes,
      requested: integration.scopes,
      consent: integration.scopes.every((scope) => installation.grantedScopes.includes(scope)) ? 'granted' : 'required',
    },
  };
}

export function presentTargetInstallation(
  integration: Integration,
  kind: 'space' | 'site',
  row: TargetInstallationRow,
  config: AppConfig,
  reader: ConfigurationReader,
  expanded?: SpaceJson,
): TargetInstallationJson {
  const base = `${integrationUrls(integration.name, config).location}/installations/${row.installation.id}`;
  const publicEndpoint = kind === 'site' ? `${base}/sites/${row.targetId}/public/` : `${base}/public/`;
  return {
    integration: integration.name,
    installation: row.installation.id,
    status: row.status,
    configuration: shownConfiguration(reader, row.installation, integration.configurations[kind], row.configuration),
    externalIds: row.externalIds,
    // A site installation has a public endpoint of its own: its calls carry the site installation (a visitor-auth integration's return route).
    urls: { location: `${base}/${kind}s/${row.targetId}`, publicEndpoint, publicContentEndpoint: publicEndpoint },
    [kind]: expanded ?? row.targetId,
  };
}
