import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import { POSITION_TRANSFORMER } from './position';

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

  /**
   * Place in the organization's kept order of spaces and collections (shared by both kinds, so a
   * move may name either as its neighbour). Lists sort by (position, id).
   */
  @Column('bigint', { default: 0, transformer: POSITION_TRANSFORMER })
  position: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
