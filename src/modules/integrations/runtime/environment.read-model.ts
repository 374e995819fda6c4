import type { Organization } from '../../organizations/organization.entity';
import type { IntegrationInstallation } from '../integration-installation.entity';
import type { Integration } from '../integration.entity';

/** A space or site installation as the environment carries it (a row of its table: never made up). */
export interface TargetInstallation {
  kind: 'space' | 'site';
  targetId: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
}

/** What the dispatcher knows of the call's installation, besides the installation itself. */
export interface EnvironmentSubjects {
  integration: Integration;
  /** The integration's owner (`Integration.owner`). */
  owner: Organization;
  installation?: IntegrationInstallation | null;
  /** Spaces the installation manages (`IntegrationInstallation.spaces`). */
  spaces?: number;
  target?: TargetInstallation | null;
}

/**
 * Shapes the `environment` of a script call from the public presenters (`environment.presenter.ts`).
 * The dispatcher (a service) receives it through this token, so that it never imports a presenter;
 * the integrations module provides it.
 */
export const SCRIPT_ENVIRONMENT = Symbol('SCRIPT_ENVIRONMENT');

export interface ScriptEnvironmentShaper {
  shape(subjects: EnvironmentSubjects, signingSecret: string, tokens: { integration: string; installation?: string }): Record<string, unknown>;
}
