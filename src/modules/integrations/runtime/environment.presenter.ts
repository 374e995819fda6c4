import type { AppConfig } from '../../../config/app-config';
import { presentInstallation, presentTargetInstallation, SCRIPT_ENVIRONMENT } from '../installation.presenter';
import type { IntegrationInstallation } from '../integration-installation.entity';
import { presentIntegration } from '../integration.presenter';
import type { EnvironmentSubjects } from './environment.read-model';

/**
 * The `environment` form field of a script call (`IntegrationEnvironment` of the public
 * description, as `@gitbook/runtime` reads it): where the API is, the call's tokens, the
 * integration, its installation and space/site installation with their configurations, secrets.
 * The integration and the installations are the public `Integration`, `IntegrationInstallation`,
 * `IntegrationSpaceInstallation` / `IntegrationSiteInstallation` objects, shaped by the same presenters
 * as the API's answers (the integration's `permissions` are those of a caller with no role).
 */
export function scriptEnvironment(
  config: AppConfig,
  subjects: EnvironmentSubjects,
  signingSecret: string,
  tokens: { integration: string; installation?: string },
): Record<string, unknown> {
  const { integration, owner, installation, target } = subjects;
  const environment: Record<string, unknown> = {
    apiEndpoint: config.publicUrl,
    apiTokens: tokens,
    authToken: tokens.installation ?? tokens.integration,
    integration: presentIntegration(integration, owner, new Map(), config),
    secrets: integration.secrets,
    signingSecret,
    signingSecrets: { integration: signingSecret, ...(installation ? { installation: signingSecret } : {}) },
  };
  if (installation) {
    environment.installation = presentInstallation(integration, { installation, spaces: subjects.spaces ?? 0 }, config, SCRIPT_ENVIRONMENT);
  }
  if (installation && target) {
    const row = {
      installation,
      targetId: target.targetId,
      status: target.status as IntegrationInstallation['status'],
      configuration: target.configuration,
      externalIds: target.externalIds,
      createdAt: installation.createdAt,
      updatedAt: installation.updatedAt,
    };
    environment[target.kind === 'space' ? 'spaceInstallation' : 'siteInstallation'] = presentTargetInstallation(
      integration,
      target.kind,
      row,
      config,
      SCRIPT_ENVIRONMENT,
    );
    (environment.signingSecrets as Record<string, string>)[`${target.kind}Installation`] = signingSecret;
  }
  return environment;
}
