import { AppConfig } from '../../config/app-config';
import { organizationPermissions } from '../organizations/organization.policy';
import { OrganizationJson, presentOrganization } from '../organizations/organization.presenter';
import type { Organization } from '../organizations/organization.entity';
import type { Integration } from './integration.entity';
import { CallerRoles, integrationPermissions, IntegrationPermissions } from './integration.policy';
import type { IntegrationBlock, IntegrationConfigurations } from './integration.read-model';

/** `Integration` as the API shows it (section 2.21, public `Integration`). */
export interface IntegrationJson {
  object: 'integration';
  name: string;
  version: number;
  title: string;
  description: string;
  summary?: string;
  previewImages: string[];
  target: string;
  verified: boolean;
  visibility: string;
  scopes: string[];
  categories: string[];
  blocks: IntegrationBlock[];
  contentSources: object[];
  configurations: IntegrationConfigurations;
  externalLinks: { url: string; label: string }[];
  owner: OrganizationJson;
  urls: { location: string; icon?: string; app: string; assets: string; publicEndpoint: string; publicContentEndpoint: string };
  permissions: IntegrationPermissions;
  contentSecurityPolicy?: string | Record<string, string>;
}

export interface IntegrationUrls {
  location: string;
  app: string;
  publicEndpoint: string;
}

/** Where an integration lives in the API and where its public endpoint answers. */
export function integrationUrls(name: string, config: AppConfig): IntegrationUrls {
  const location = config.apiUrl(`/v1/integrations/${name}`);
  return { location, app: config.appLink(`/integrations/${name}`, `/v1/integrations/${name}`), publicEndpoint: `${location}/public/` };
}

export function presentIntegration(integration: Integration, owner: Organization, roles: CallerRoles, config: AppConfig): IntegrationJson {
  const urls = integrationUrls(integration.name, config);
  const previews = integration.previewCount;
  const json: IntegrationJson = {
    object: 'integration',
    name: integration.name,
    version: integration.version,
    title: integration.title,
    description: integration.description,
    previewImages: Array.from({ length: previews }, (_, index) => `${urls.location}/preview/${index}?v=${integration.version}`),
    target: integration.target,
    verified: false,
    visibility: integration.visibility,
    scopes: integration.scopes,
    categories: integration.categories,
    blocks: integration.blocks,
    contentSources: integration.contentSources,
    configurations: integration.configurations,
    externalLinks: integration.externalLinks,
    owner: presentOrganization(owner, organizationPermissions({ membership: { role: roles.get(owner.id) ?? null } }), config),
    urls: {
      location: urls.location,
      app: urls.app,
      assets: urls.publicEndpoint,
      publicEndpoint: urls.publicEndpoint,
      publicContentEndpoint: urls.publicEndpoint,
    },
    permissions: integrationPermissions(integration, roles),
  };
  if (integration.summary) json.summary = integration.summary;
  if (integration.hasIcon) json.urls.icon = `${urls.location}/icon?v=${integration.version}`;
  if (integration.contentSecurityPolicy) json.contentSecurityPolicy = integration.contentSecurityPolicy;
  return json;
}
