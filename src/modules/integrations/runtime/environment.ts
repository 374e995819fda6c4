import type { AppConfig } from '../../../config/app-config';
import type { IntegrationInstallation } from '../integration-installation.entity';
import type { Integration } from '../integration.entity';

/** A space or site installation as the environment carries it. */
export interface TargetInstallation {
  kind: 'space' | 'site';
  targetId: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
}

/**
 * The `environment` form field of a script call (`IntegrationEnvironment` of the public
 * description, as `@gitbook/runtime` reads it): where the API is, the call's tokens, the
 * integration, its installation and space/site installation with their configurations, secrets.
 */
export function scriptEnvironment(
  config: AppConfig,
  integration: Integration,
  signingSecret: string,
  tokens: { integration: string; installation?: string },
  installation?: IntegrationInstallation | null,
  target?: TargetInstallation | null,
): Record<string, unknown> {
  const location = config.apiUrl(`/v1/integrations/${integration.name}`);
  const environment: Record<string, unknown> = {
    apiEndpoint: config.publicUrl,
    apiTokens: tokens,
    authToken: tokens.installation ?? tokens.integration,
    integration: {
      object: 'integration',
      name: integration.name,
      version: integration.version,
      title: integration.title,
      scopes: integration.scopes,
      target: integration.target,
      visibility: integration.visibility,
      urls: { location, publicEndpoint: `${location}/public/`, publicContentEndpoint: `${location}/public/` },
    },
    secrets: integration.secrets,
    signingSecret,
    signingSecrets: { integration: signingSecret, ...(installation ? { installation: signingSecret } : {}) },
  };
  if (installation) {
    const installationLocation = `${location}/installations/${installation.id}`;
    environment.installation = {
      id: installation.id,
      status: installation.status,
      space_selection: installation.spaceSelection,
      site_selection: installation.siteSelection,
      configuration: installation.configuration,
      externalIds: installation.externalIds,
      target: { organization: installation.organizationId },
      createdAt: installation.createdAt.toISOString(),
      updatedAt: installation.updatedAt.toISOString(),
      urls: { location: installationLocation, publicEndpoint: `${installationLocation}/public/`, publicContentEndpoint: `${installationLocation}/public/` },
    };
  }
  if (installation && target) {
    const targetLocation = `${location}/installations/${installation.id}/${target.kind}s/${target.targetId}`;
    environment[target.kind === 'space' ? 'spaceInstallation' : 'siteInstallation'] = {
      integration: integration.name,
      installation: installation.id,
      [target.kind]: target.targetId,
      status: target.status,
      configuration: target.configuration,
      externalIds: target.externalIds,
      urls: {
        location: targetLocation,
        publicEndpoint: `${location}/installations/${installation.id}/public/`,
        publicContentEndpoint: `${location}/installations/${installation.id}/public/`,
      },
    };
    (environment.signingSecrets as Record<string, string>)[`${target.kind}Installation`] = signingSecret;
  }
  return environment;
}
