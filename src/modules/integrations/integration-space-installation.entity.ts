import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { InstallationStatus } from './integration-installation.entity';

/** An organization installation extended to one space. */
@Entity('integration_space_installations')
export class IntegrationSpaceInstallation {
  @PrimaryColumn('text')
  installationId: string;

  @PrimaryColumn('text')
  spaceId: string;

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
