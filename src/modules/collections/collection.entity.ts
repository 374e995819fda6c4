import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';

@Entity('collections')
export class Collection {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  /** Parent collection, null at the top level. */
  @Column('text', { nullable: true })
  parentId: string | null;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { nullable: true })
  defaultLevel: MemberRoleOrGuest;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
