import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';

export const SAML_PROVIDER_STATUSES = ['active', 'pending'] as const;
export type SamlProviderStatus = (typeof SAML_PROVIDER_STATUSES)[number];

/** An identity provider members of an organization can sign in with. */
@Entity('saml_providers')
export class SamlProvider {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  label: string;

  /** The identity provider's entity ID (the issuer of its assertions). */
  @Column('text')
  entityId: string;

  /** PEM of the X.509 certificate that signs the identity provider's assertions. */
  @Column('text')
  certificate: string;

  @Column('text')
  ssoUrl: string;

  /** Team that members signing in for the first time join; null when none (or the team was deleted). */
  @Column('text', { nullable: true })
  defaultTeamId: string | null;

  /** Role of members signing in for the first time; null makes them guests. */
  @Column('text', { nullable: true })
  defaultRole: MemberRoleOrGuest;

  @Column('text')
  status: SamlProviderStatus;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
