import type { AppConfig } from '../../../config/app-config';
import { presentInstallation, presentTargetInstallation, SCRIPT_ENVIRONMENT } from '../installation.presenter';
import type { IntegrationInstallation } from '../integration-installation.entity';
import { presentIntegration } from '../integration.presenter';
import type { EnvironmentSubjects } from './environment.read-model';
import { installationSigningSecret, targetSigningSecret } from './signing-secrets';

/**
 * The `environment` form field of a script call (`IntegrationEnvironment` of the public
 * description, as `@gitbook/runtime` reads it): where the API is, the call's tokens, the
 * integration, its installation and space/site installation with their configurations, secrets.
 * The integration and the installations are the public `Integration`, `IntegrationInstallation`,
 * `IntegrationSpaceInstallation` / `IntegrationSiteInstallation` objects, shaped by the same presenters
 * as the API's answers (the integration's `permissions` are those of a caller with no role).
 * `signingSecrets`: the integration's own, and one derived per installation and per space or site
 * installation (`signing-secrets.ts`): a site installation's secret signs that site's visitor JWTs.
 */
export function scriptEnvironment(
  config: AppConfig,
  subjects: EnvironmentSubjects,
  signingSecret: string,
  tokens: { integration: string; installation?: string },
): Record<string, unknown> {
  const { integration, owner, installation, target } = subjects;
  const signingSecrets: Record<string, string> = { integration: signingSecret };
  if (installation) signingSecrets.installation = installationSigningSecret(signingSecret, installation.id);
  const environment: Record<string, unknown> = {
    apiEndpoint: config.publicUrl,
    apiTokens: tokens,
    authToken: tokens.installation ?? tokens.integration,
    integration: presentIntegration(integration, owner, new Map(), config),
    secrets: integration.secrets,
    signingSecret,
    signingSecrets,
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
    signingSecrets[`${target.kind}Installation`] = targetSigningSecret(signingSecret, installation.id, target.kind, target.targetId);
  }
  return environment;
}
