import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import type { MergeRulesStandalone } from '../space-model/merge-rules';

@Entity('organizations')
export class Organization {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  title: string;

  @Column('text', { array: true, default: () => "'{}'" })
  emailDomains: string[];

  @Column('text', { nullable: true, unique: true })
  hostname: string | null;

  @Column('text', { default: 'business' })
  type: 'business' | 'community';

  @Column('text', { nullable: true })
  useCase: string | null;

  @Column('text', { nullable: true })
  communityType: string | null;

  /** Role given to members who join without one; null means they join as guests. */
  @Column('text', { nullable: true })
  defaultRole: MemberRoleOrGuest;

  /** Site shown by default; a site id once sites exist. */
  @Column('text', { nullable: true })
  defaultSiteId: string | null;

  @Column('boolean', { default: false })
  sso: boolean;

  @Column('boolean', { default: false })
  ai: boolean;

  @Column('boolean', { default: false })
  inviteLinks: boolean;

  @Column('text', { nullable: true })
  logoUrl: string | null;

  /** The public `mergeRules` (`rules` or `none`): what the organization's spaces that inherit obey. */
  @Column('jsonb', { default: () => `'{"type":"none"}'` })
  mergeRules: MergeRulesStandalone;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
