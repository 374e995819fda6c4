import type { AppConfig } from '../../../config/app-config';
import { presentUser, type UserJson } from '../../users/user.presenter';
import type { ChangeRequest } from '../change-request.entity';
import type { ChangeRequestRequestedReviewer } from './review.entity';
import type { ContributorRow, MergeRulesSettings, PeopleContext, ReviewRow } from './review.read-model';

export interface ReviewJson {
  object: 'change-request-review';
  id: string;
  revision: string;
  reviewer: UserJson;
  requestedBy?: UserJson;
  status: string;
  outdated: boolean;
  createdAt: string;
  updatedAt: string;
  urls: { location: string };
}

export interface RequestedReviewerJson {
  object: 'change-request-requested-reviewer';
  kind: 'user';
  user: UserJson;
  revision: string;
  requestedBy?: UserJson;
  createdAt: string;
}

export interface ContributorJson {
  user: UserJson;
  count: number;
  updatedAt: string;
  actionType: 'edit';
}

export interface MergeRulesJson extends MergeRulesSettings {
  object: 'space-merge-rules';
  space: string;
  urls: { location: string };
}

const crPath = (cr: Pick<ChangeRequest, 'spaceId' | 'id'>) => `/v1/spaces/${cr.spaceId}/change-requests/${cr.id}`;

function person(context: PeopleContext, id: string | null): UserJson | undefined {
  const user = id ? context.users.get(id) : undefined;
  return user ? presentUser(user, context.config, context.emails) : undefined;
}

/** A deleted user is shown as an id only, so a required `User` never disappears from a response. */
function required(context: PeopleContext, id: string): UserJson {
  return person(context, id) ?? { object: 'user', id, displayName: '', urls: { location: context.config.apiUrl(`/v1/users/${id}`) } };
}

export function presentReview(cr: ChangeRequest, { review, outdated }: ReviewRow, context: PeopleContext): ReviewJson {
  const json: ReviewJson = {
    object: 'change-request-review',
    id: review.id,
    revision: review.revisionId,
    reviewer: required(context, review.reviewerId),
    status: review.status,
    outdated,
    createdAt: review.createdAt.toISOString(),
    updatedAt: review.updatedAt.toISOString(),
    urls: { location: context.config.apiUrl(`${crPath(cr)}/reviews/${review.id}`) },
  };
  const requester = person(context, review.requestedBy);
  if (requester) json.requestedBy = requester;
  return json;
}

export function presentRequestedReviewer(row: ChangeRequestRequestedReviewer, context: PeopleContext): RequestedReviewerJson {
  const json: RequestedReviewerJson = {
    object: 'change-request-requested-reviewer',
    kind: 'user',
    user: required(context, row.userId),
    revision: row.revisionId,
    createdAt: row.createdAt.toISOString(),
  };
  const requester = person(context, row.requestedBy);
  if (requester) json.requestedBy = requester;
  return json;
}

export function presentContributor(row: ContributorRow, context: PeopleContext): ContributorJson {
  return { user: required(context, row.userId), count: Number(row.edits), updatedAt: new Date(row.updatedAt).toISOString(), actionType: 'edit' };
}

export function presentMergeRules(spaceId: string, rules: MergeRulesSettings, config: AppConfig): MergeRulesJson {
  return {
    object: 'space-merge-rules',
    space: spaceId,
    requiredApprovals: rules.requiredApprovals,
    urls: { location: config.apiUrl(`/v1/spaces/${spaceId}/merge-rules`) },
  };
}
