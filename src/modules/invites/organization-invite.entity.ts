import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';

/** An invitation of an existing user into an organization, waiting for them to accept or decline it. */
@Entity('organization_invites')
export class OrganizationInvite {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  /** The invitee: only they can accept or decline. */
  @Column('text')
  userId: string;

  /** Role they get on accepting; null makes them a guest. */
  @Column('text', { nullable: true })
  role: MemberRoleOrGuest;

  /** Whether accepting makes them an SSO member. */
  @Column('boolean', { default: false })
  sso: boolean;

  @Column('text', { nullable: true })
  invitedBy: string | null;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
