import type { AppConfig } from '../../../config/app-config';
import type { MemberRoleOrGuest } from '../../../common/roles';
import type { TeamRow } from '../../teams/team.read-model';
import type { User } from '../../users/user.entity';
import type { EmailVisibility } from '../../users/user.policy';
import type { Space } from '../../space-model/space.entity';
import type { SpacePermissionsJson } from '../../space-model/space-permissions';
import type { ChangeRequest } from '../change-request.entity';
import type { ChangeRequestView } from '../change-request.read-model';
import type { ChangeRequestReview, ReviewStatus, SpaceMergeRules } from './review.entity';
import type { ReviewCommentJson } from './review-comments.port';

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
  /** Of another head than the current one, or its reviewer was asked again since (the list's `outdated`). */
  outdated: boolean;
}

/** A user or a team asked to review (`change_request_review_requests`, both kinds in one order). */
export interface RequestRow {
  kind: 'user' | 'team';
  /** The user's id or the team's. */
  reviewerId: string;
  requestedBy: string | null;
  revisionId: string;
  createdAt: Date;
}

export interface ContributorRow {
  userId: string;
  edits: number;
  updatedAt: Date;
}

/** The people a response names, and which e-mails the caller may see. */
export interface PeopleContext {
  users: Map<string, User>;
  /** Teams a response names, with the caller's organization role (for each team's `permissions`). */
  teams?: { rows: Map<string, TeamRow>; organizationRole: MemberRoleOrGuest };
  emails: EmailVisibility;
  config: AppConfig;
}

/** The Quire extension to the merge rules: approvals a merge needs. */
export type MergeRulesSettings = Pick<SpaceMergeRules, 'requiredApprovals'>;

/** A space without a stored extension needs no approval beyond its public rules. */
export const NO_MERGE_RULES: MergeRulesSettings = { requiredApprovals: 0 };

/** What a `custom` merge rule reads, before it is presented as the public `MergeRulesEvaluationContext`. */
export interface MergeRulesContextView {
  space: Space;
  /** The merger's permissions on the space (the `Space`'s `permissions`). */
  permissions: SpacePermissionsJson;
  changeRequest: ChangeRequestView;
  /** Every review posted on the change request, newest first. */
  reviews: { cr: ChangeRequest; rows: ReviewRow[]; people: PeopleContext; comments: Map<string, ReviewCommentJson> };
  actor: User;
}

/**
 * Presents a `MergeRulesContextView` (the merge evaluates custom rules over the public shapes, and
 * only presenters shape them): the module provides `presentMergeRulesContext` under this token.
 */
export const MERGE_RULES_CONTEXT_PRESENTER = Symbol('MERGE_RULES_CONTEXT_PRESENTER');
export type MergeRulesContextPresenter = (view: MergeRulesContextView) => object;
