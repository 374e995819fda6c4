import type { AppConfig } from '../../../config/app-config';
import { presentUser, type UserJson } from '../../users/user.presenter';
import type { ChangeRequest } from '../change-request.entity';
import { presentChangeRequest, type ChangeRequestJson } from '../change-request.presenter';
import { presentSpace, type SpaceJson } from '../../space-model/space.presenter';
import type { ReviewCommentJson } from './review-comments.port';
import { presentTeam, type TeamJson } from '../../teams/team.presenter';
import { teamPermissions } from '../../teams/team.policy';
import type { ContributorRow, MergeRulesContextView, MergeRulesSettings, PeopleContext, RequestRow, ReviewRow } from './review.read-model';

export interface ReviewJson {
  object: 'change-request-review';
  id: string;
  revision: string;
  reviewer: UserJson;
  requestedBy?: UserJson;
  status: string;
  outdated: boolean;
  comment?: ReviewCommentJson;
  createdAt: string;
  updatedAt: string;
  urls: { location: string };
}

/** The public `MergeRulesEvaluationContext`: what a `custom` merge rule's expression reads. */
export interface MergeRulesEvaluationContextJson {
  space: SpaceJson;
  changeRequest: ChangeRequestJson;
  reviews: ReviewJson[];
  actor: UserJson;
}

export type RequestedReviewerJson = {
  object: 'change-request-requested-reviewer';
  revision: string;
  requestedBy?: UserJson;
  createdAt: string;
} & ({ kind: 'user'; user: UserJson } | { kind: 'team'; team: TeamJson });

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

/** `comments`: the reviews' comments by review id (a review whose comment was deleted shows none). */
export function presentReview(
  cr: ChangeRequest,
  { review, outdated }: ReviewRow,
  context: PeopleContext,
  comments: Map<string, ReviewCommentJson>,
): ReviewJson {
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
  const comment = comments.get(review.id);
  if (comment) json.comment = comment;
  return json;
}

/** The public `MergeRulesEvaluationContext`, as the merger would read each object through the API. */
export function presentMergeRulesContext(view: MergeRulesContextView, config: AppConfig): MergeRulesEvaluationContextJson {
  const { cr, rows, people, comments } = view.reviews;
  return {
    space: presentSpace(view.space, view.permissions, config),
    changeRequest: presentChangeRequest(view.changeRequest, config),
    reviews: rows.map((row) => presentReview(cr, row, people, comments)),
    actor: presentUser(view.actor, config, people.emails),
  };
}

/** A deleted team is shown by its id (its request goes with it; this covers a read racing the deletion). */
function team(context: PeopleContext, id: string): TeamJson {
  const row = context.teams?.rows.get(id);
  if (!row) return { object: 'team', id, title: '', members: 0, spaces: 0, createdAt: new Date(0).toISOString(), permissions: { admin: false, view: false } };
  return presentTeam(row, teamPermissions({ membership: { role: context.teams?.organizationRole ?? null }, teamRole: row.callerRole }));
}

export function presentRequestedReviewer(row: RequestRow, context: PeopleContext): RequestedReviewerJson {
  const base = { object: 'change-request-requested-reviewer' as const, revision: row.revisionId, createdAt: new Date(row.createdAt).toISOString() };
  const json: RequestedReviewerJson =
    row.kind === 'team' ? { ...base, kind: 'team', team: team(context, row.reviewerId) } : { ...base, kind: 'user', user: required(context, row.reviewerId) };
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
