import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** A proposed edit of a space on its own line of revisions (section 2.6). */
@Entity('change_requests')
export class ChangeRequest {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  spaceId: string;

  /** Incremental in the space, given under the space's row lock. */
  @Column('integer')
  number: number;

  @Column('text')
  status: ChangeRequestStatus;

  @Column('text')
  subject: string;

  @Column('text', { nullable: true })
  agentTaskId: string | null;

  @Column('text', { nullable: true })
  createdBy: string | null;

  /** The space's active revision when the change request was created. */
  @Column('text')
  revisionInitial: string;

  /** The change request's head. */
  @Column('text')
  revision: string;

  /** The main revision of the last update from main. */
  @Column('text', { nullable: true })
  revisionMergedAncestor: string | null;

  /** The space revision its merge produced. */
  @Column('text', { nullable: true })
  revisionMerged: string | null;

  /** Open comments on the change request, kept by the comments module in its writes. */
  @Column('integer', { default: 0 })
  openComments: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  mergedAt: Date | null;

  @Column('text', { nullable: true })
  mergedBy: string | null;
}
