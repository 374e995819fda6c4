import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';

/** A user's place in an organization. `role` null means a guest. */
@Entity('memberships')
export class Membership {
  @PrimaryColumn('text')
  organizationId: string;

  @PrimaryColumn('text')
  userId: string;

  @Column('text', { nullable: true })
  role: MemberRoleOrGuest;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  joinedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastSeenAt: Date | null;

  @Column('boolean', { default: false })
  sso: boolean;

  @Column('boolean', { default: false })
  disabled: boolean;
}
