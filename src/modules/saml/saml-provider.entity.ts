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

  /** The identity provider's entity ID (the issuer of its assertions); null until configured. */
  @Column('text', { nullable: true })
  entityId: string | null;

  /** PEM of the X.509 certificate that signs the identity provider's assertions; null until configured. */
  @Column('text', { nullable: true })
  certificate: string | null;

  /** The identity provider's sign-in URL; null until configured. */
  @Column('text', { nullable: true })
  ssoUrl: string | null;

  /** Team that members signing in for the first time join; null when none (or the team was deleted). */
  @Column('text', { nullable: true })
  defaultTeamId: string | null;

  /** Role of members signing in for the first time; null makes them guests. */
  @Column('text', { nullable: true })
  defaultRole: MemberRoleOrGuest;

  /** Computed by PostgreSQL: `active` once entity ID, certificate and sign-in URL are all set, else `pending`. */
  @Column({
    type: 'text',
    insert: false,
    update: false,
    generatedType: 'STORED',
    asExpression: `CASE WHEN entity_id IS NOT NULL AND certificate IS NOT NULL AND sso_url IS NOT NULL THEN 'active' ELSE 'pending' END`,
  })
  status: SamlProviderStatus;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
