import type { RevisionPage } from '../content/revision-page.entity';
import type { User } from '../users/user.entity';
import type { Comment } from './comment.entity';
import type { CommentReply } from './comment-reply.entity';
import type { ReactionGroup } from './reactions';

/** Where comments live: the space itself (`changeRequestId` null) or one of its change requests. */
export interface CommentScope {
  spaceId: string;
  changeRequestId: string | null;
  /** The revision comments are posted on and pages compared with: the space's active one, or the change request's head. */
  revisionId: string;
}

/** A user who replied to a comment: how many replies, and when the latest was posted (public `UserContributor`). */
export interface Replier {
  user: User;
  count: number;
  updatedAt: Date;
}

/** A comment with what its JSON shows beyond its row, read in batches for a page of comments. */
export interface CommentRow {
  comment: Comment;
  postedBy: User;
  resolvedBy: User | null;
  replies: number;
  repliers: Replier[];
  reactions: ReactionGroup<User>[];
  /**
   * The targeted page as the scope's current revision has it (or, when it is gone from it, as it was in the
   * revision the comment was posted on, which its foreign key keeps), and whether it changed since.
   */
  page: { page: RevisionPage; outdated: boolean } | null;
}

export interface ReplyRow {
  reply: CommentReply;
  /** The comment's scope, for the reply's URL. */
  comment: Comment;
  postedBy: User;
  reactions: ReactionGroup<User>[];
}
