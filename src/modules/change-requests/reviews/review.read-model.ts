import type { AppConfig } from '../../../config/app-config';
import type { User } from '../../users/user.entity';
import type { EmailVisibility } from '../../users/user.policy';
import type { ChangeRequestReview, ReviewStatus } from './review.entity';

/** A review with whether it is outdated (computed, not stored: it changes when the change request moves on). */
export interface ReviewRow {
  review: ChangeRequestReview;
  outdated: boolean;
}

/** Each reviewer's latest review: what the merge rules count. */
export interface LatestReview {
  reviewerId: string;
  status: ReviewStatus;
  revisionId: string;
}

export interface ContributorRow {
  userId: string;
  edits: number;
  updatedAt: Date;
}

/** The people a response names, and which e-mails the caller may see. */
export interface PeopleContext {
  users: Map<string, User>;
  emails: EmailVisibility;
  config: AppConfig;
}
