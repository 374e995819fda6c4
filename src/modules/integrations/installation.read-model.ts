import type { IntegrationInstallation } from './integration-installation.entity';

/** An organization installation with how many spaces it manages. */
export interface InstallationRow {
  installation: IntegrationInstallation;
  spaces: number;
}

/** A space or site installation joined to its organization installation. */
export interface TargetInstallationRow {
  installation: IntegrationInstallation;
  targetId: string;
  status: IntegrationInstallation['status'];
  configuration: Record<string, unknown>;
  externalIds: string[];
  createdAt: Date;
  updatedAt: Date;
}
