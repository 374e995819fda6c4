import { AppConfig } from '../../config/app-config';
import type { SpaceJson } from '../space-model/space.presenter';
import { integrationUrls } from './integration.presenter';
import type { Integration } from './integration.entity';
import type { InstallationRow, TargetInstallationRow } from './installation.read-model';

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

export function presentInstallation(integration: Integration, row: InstallationRow, config: AppConfig): InstallationJson {
  const { installation } = row;
  const base = integrationUrls(integration.name, config);
  const location = `${base.location}/installations/${installation.id}`;
  return {
    id: installation.id,
    status: installation.status,
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection,
    spaces: row.spaces,
    configuration: installation.configuration,
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
  expanded?: SpaceJson,
): TargetInstallationJson {
  const base = `${integrationUrls(integration.name, config).location}/installations/${row.installation.id}`;
  return {
    integration: integration.name,
    installation: row.installation.id,
    status: row.status,
    configuration: row.configuration,
    externalIds: row.externalIds,
    urls: { location: `${base}/${kind}s/${row.targetId}`, publicEndpoint: `${base}/public/`, publicContentEndpoint: `${base}/public/` },
    [kind]: expanded ?? row.targetId,
  };
}
