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

/** A team asked to review a change request, until one of its members reviews or the request is removed. */
@Entity('change_request_requested_teams')
export class ChangeRequestRequestedTeam {
  @PrimaryColumn('text')
  changeRequestId: string;

  @PrimaryColumn('text')
  teamId: string;

  @Column('text', { nullable: true })
  requestedBy: string | null;

  @Column('text')
  revisionId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/**
 * Users and teams asked to review, in one list: the view `change_request_review_requests` (migration
 * 1800000312000) over the two tables above. Read only; `synchronize: false` keeps the schema tools off it.
 */
@Entity('change_request_review_requests', { synchronize: false })
export class ChangeRequestReviewRequest {
  @PrimaryColumn('text')
  changeRequestId: string;

  /** The user's id or the team's. */
  @PrimaryColumn('text')
  reviewerId: string;

  @Column('text')
  kind: 'user' | 'team';

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
