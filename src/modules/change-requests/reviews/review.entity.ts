import { Column, Entity, PrimaryColumn } from 'typeorm';

export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A submitted review (the public `ChangeRequestReview`), pinned to the change request's head when it was submitted. */
@Entity('change_request_reviews')
export class ChangeRequestReview {
  @PrimaryColumn('text')
  id: string;

  /** Submission order (an identity column): the latest review of a reviewer is the one with the highest. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', select: false, insert: false, update: false })
  seq?: string;

  @Column('text')
  changeRequestId: string;

  @Column('text')
  reviewerId: string;

  /** Who asked the reviewer, when the reviewer had been requested. */
  @Column('text', { nullable: true })
  requestedBy: string | null;

  @Column('text')
  status: ReviewStatus;

  @Column('text')
  revisionId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

/** A user asked to review a change request, until they review or are removed. */
@Entity('change_request_requested_reviewers')
export class ChangeRequestRequestedReviewer {
  @PrimaryColumn('text')
  changeRequestId: string;

  @PrimaryColumn('text')
  userId: string;

  @Column('text', { nullable: true })
  requestedBy: string | null;

  @Column('text')
  revisionId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/**
 * The Quire extension to a space's merge rules: how many approvals a merge needs, which the public
 * `mergeRules` cannot say (their rules count one approval at most). No row: none beyond the public rules.
 */
@Entity('space_merge_rules')
export class SpaceMergeRules {
  @PrimaryColumn('text')
  spaceId: string;

  @Column('integer')
  requiredApprovals: number;

  @Column({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
