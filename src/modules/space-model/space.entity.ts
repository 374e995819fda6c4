import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import type { MergeRulesOfSpace } from './merge-rules';
import { POSITION_TRANSFORMER } from './position';

export const SPACE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export type SpaceVisibility = (typeof SPACE_VISIBILITIES)[number];
export const SPACE_EDIT_MODES = ['live', 'locked'] as const;
export type SpaceEditMode = (typeof SPACE_EDIT_MODES)[number];

@Entity('spaces')
export class Space {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  /** Parent collection, null at the top level. */
  @Column('text', { nullable: true })
  parentId: string | null;

  @Column('text')
  title: string;

  @Column('text')
  emoji: string;

  @Column('text')
  visibility: SpaceVisibility;

  @Column('text')
  editMode: SpaceEditMode;

  @Column('text', { nullable: true })
  defaultLevel: MemberRoleOrGuest;

  /**
   * Place in the organization's kept order of spaces and collections (shared by both kinds, so a
   * move may name either as its neighbour). Lists sort by (position, id).
   */
  @Column('bigint', { default: 0, transformer: POSITION_TRANSFORMER })
  position: number;

  /** The active revision: what readers of the space's content see. */
  @Column('text')
  revisionId: string;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;

  /** Last change request number given in this space (numbers are given under the row lock: never repeated or skipped). */
  @Column('integer', { default: 0, select: false })
  changeRequestSeq: number;

  // Counters of section 2.3, kept by their writers in the transaction that changes what they count (`SpaceWrite.count`).
  @Column('integer', { default: 0 })
  changeRequestsCount: number;

  @Column('integer', { default: 0 })
  openChangeRequests: number;

  @Column('integer', { default: 0 })
  draftChangeRequests: number;

  @Column('integer', { default: 0 })
  openComments: number;

  /** The public `mergeRules` as set by PATCH; null: `inherit` (the organization's). */
  @Column('jsonb', { nullable: true })
  mergeRules: MergeRulesOfSpace | null;

  /** Set by DELETE; the space can be restored for the retention period, then it is purged. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  deletedAt: Date | null;
}
