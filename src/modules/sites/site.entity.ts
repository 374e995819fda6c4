import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];
export const SITE_AGENTS_CONTEXTS = ['excluded', 'included'] as const;
export type SiteAgentsContext = (typeof SITE_AGENTS_CONTEXTS)[number];

/** A docs site (section 2.8): how content reaches readers. */
@Entity('sites')
export class Site {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;

  @Column('text', { default: 'basic' })
  type: string;

  @Column('text', { default: 'public' })
  visibility: SiteVisibility;

  @Column('boolean', { default: false })
  published: boolean;

  @Column('text', { nullable: true })
  hostname: string | null;

  @Column('text', { nullable: true })
  basename: string | null;

  @Column('text', { nullable: true })
  proxyOrigin: string | null;

  @Column('boolean', { default: false })
  adaptiveEnabled: boolean;

  @Column('text', { default: 'included' })
  agentsContext: SiteAgentsContext;

  @Column('jsonb', { nullable: true })
  adaptiveSchema: Record<string, unknown> | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  adaptiveSchemaUpdatedAt: Date | null;

  /** The customization settings; null: the defaults. */
  @Column('jsonb', { nullable: true })
  customization: Record<string, unknown> | null;
}
