import type { SpacePermissionsJson } from '../../space-model/space-permissions';
import type { SpaceWrite } from '../../space-writes/space-unit-of-work';
import type { User } from '../../users/user.entity';
import type { ChangeRequest } from '../change-request.entity';

/**
 * Comments of reviews: a review's comment is a comment of its change request (the public
 * `ChangeRequestReview.comment`, a `Comment` whose `target.review` names the review). Comments sit
 * above change requests, so the reviews ask for them through this port, which `comments/` provides.
 * Without it (a slice of the app without comments), a review takes no comment and shows none.
 */
export const REVIEW_COMMENTS = Symbol('REVIEW_COMMENTS');

/** The public `Comment`, as the comments module presents it (opaque here). */
export type ReviewCommentJson = { object: 'comment'; id: string } & Record<string, unknown>;

export interface ReviewCommentsPort {
  /** Posts `markdown` by `caller` on the change request's head as review `reviewId`'s comment, in the review's write. */
  post(write: SpaceWrite, changeRequest: ChangeRequest, reviewId: string, markdown: string, caller: User): Promise<void>;
  /** The comments of these reviews as `viewer` sees them, by review id; a review whose comment was deleted has none. */
  shown(
    viewer: User,
    permissions: SpacePermissionsJson,
    format: 'markdown' | 'document',
    changeRequest: ChangeRequest,
    reviewIds: string[],
  ): Promise<Map<string, ReviewCommentJson>>;
}
