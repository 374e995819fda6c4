import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { InstallationStatus } from './integration-installation.entity';

/** An organization installation extended to one site. */
@Entity('integration_site_installations')
export class IntegrationSiteInstallation {
  @PrimaryColumn('text')
  installationId: string;

  @PrimaryColumn('text')
  siteId: string;

  @Column('text')
  status: InstallationStatus;

  @Column('jsonb')
  configuration: Record<string, unknown>;

  @Column('jsonb')
  externalIds: string[];

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
