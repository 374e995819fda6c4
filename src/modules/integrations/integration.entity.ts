import { encryptedJson, encryptedText } from '../../common/crypto/secret-cipher';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { IntegrationBlock, IntegrationConfigurations } from './integration.read-model';

/** A published integration (section 2.21): its manifest, icon and built script. */
@Entity('integrations')
export class Integration {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  organizationId: string;

  @Column('integer')
  version: number;

  @Column('text')
  runtime: string;

  @Column('text')
  title: string;

  @Column('text')
  description: string;

  @Column('text', { nullable: true })
  summary: string | null;

  @Column('text')
  visibility: string;

  @Column('text')
  target: string;

  @Column('jsonb')
  scopes: string[];

  @Column('jsonb')
  categories: string[];

  @Column('jsonb')
  blocks: IntegrationBlock[];

  @Column('jsonb')
  contentSources: object[];

  @Column('jsonb')
  externalLinks: { url: string; label: string }[];

  @Column('jsonb')
  configurations: IntegrationConfigurations;

  /** The manifest's `secrets`, encrypted at rest (`common/crypto/secret-cipher.ts`); plaintext here. */
  @Column('jsonb', { transformer: encryptedJson('integrations.secrets') })
  secrets: Record<string, string>;

  /** Quire extension events the integration asks for (`audit_event`): the public events need no asking. */
  @Column('jsonb', { default: () => "'[]'::jsonb" })
  events: string[];

  @Column('jsonb', { nullable: true })
  contentSecurityPolicy: string | Record<string, string> | null;

  @Column('bytea', { nullable: true, select: false })
  icon: Buffer | null;

  /** Base64 images as published; served by index at `…/preview/{n}`. */
  @Column('jsonb', { select: false })
  previewImages: string[];

  /** Whether `icon` is set, kept beside it so lists need not load the bytes. */
  @Column('boolean')
  hasIcon: boolean;

  /** `previewImages.length`, for the same reason. */
  @Column('integer')
  previewCount: number;

  @Column('text', { select: false })
  script: string;

  /** Signs what Quire sends on the integration's behalf (`signingSecrets.integration`). */
  @Column('text', { select: false, transformer: encryptedText('integrations.signing_secret') })
  signingSecret: string;

  @Column('text', { nullable: true })
  devTunnelUrl: string | null;

  @Column('boolean')
  devAll: boolean;

  @Column('text', { nullable: true })
  devUserId: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  devExpiresAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
