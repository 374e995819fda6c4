import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An integration installed on an organization (section 2.22). */
@Entity('integration_installations')
export class IntegrationInstallation {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  integrationId: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  status: InstallationStatus;

  @Column('jsonb')
  configuration: Record<string, unknown>;

  @Column('jsonb')
  externalIds: string[];

  @Column('text')
  spaceSelection: 'all' | 'selected';

  @Column('text')
  siteSelection: 'all' | 'selected';

  /**
   * The scopes an admin of the organization granted (at install, or by accepting a republish that
   * asked for more): script tokens carry these, never the manifest's current list.
   */
  @Column('jsonb')
  grantedScopes: string[];

  /** The admin who installed it: scripts' tokens act as them, narrowed to the scopes and the installation. */
  @Column('text', { nullable: true })
  installedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

export type InstallationStatus = 'active' | 'pending' | 'paused';
