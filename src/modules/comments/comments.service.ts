import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import type { SpaceAccess } from '../access/space-access.service';
import type { MemberRow } from '../members/member.read-model';
import type { ChangeRequest } from '../change-requests/change-request.entity';
import { ChangeRequestsService } from '../change-requests/change-requests.service';
import { SpaceUnitOfWork, SpaceWrite } from '../space-writes/space-unit-of-work';
import type { Space } from '../space-model/space.entity';
import type { User } from '../users/user.entity';
import { Comment } from './comment.entity';
import { commentError } from './comment.errors';
import { pageNodes } from './comment-nodes';
import { canDelete, canEdit, canResolve, CommentCaller } from './comment.policy';
import type { CommentRow, CommentScope, ReplyRow } from './comment.read-model';
import { CommentReply } from './comment-reply.entity';
import { CommentsRepository, ReactionSubject } from './comments.repository';
import type { ListCommentsQueryDto } from './dto/comment-query.dto';
import type { PostCommentDto, UpdateCommentDto, UpdateCommentReplyDto } from './dto/comment-body.dto';
import { groupReactions } from './reactions';

/** A write's result with the caller's access as read under the space's lock (for `permissions`). */
export interface Written<T> {
  row: T;
  access: SpaceAccess;
}

/**
 * Comments and replies of a space (`changeRequest` null) or of one of its change requests. Reads
 * take the access the route's guard resolved; every write runs in `SpaceUnitOfWork.run(…, 'comment')`,
 * which locks the space and re-checks the caller there, and moves the open-comment counters (the
 * space's for its own comments, the change request's for its) in the same transaction.
 */
@Injectable()
export class CommentsService {
  constructor(
    private readonly comments: CommentsRepository,
    private readonly unitOfWork: SpaceUnitOfWork,
    private readonly changeRequests: ChangeRequestsService,
  ) {}

  async list(access: SpaceAccess, changeRequest: string | null, query: ListCommentsQueryDto): Promise<Page<CommentRow>> {
    const scope = await this.scopeOf(access.space, changeRequest);
    const page = await this.comments.listComments(scope, query);
    return { ...page, items: await this.details(page.items, scope) };
  }

  async get(access: SpaceAccess, changeRequest: string | null, commentId: string): Promise<CommentRow> {
    const scope = await this.scopeOf(access.space, changeRequest);
    const [row] = await this.details([await this.requireComment(scope, commentId)], scope);
    return row;
  }

  post(caller: User, access: SpaceAccess, changeRequest: string | null, dto: PostCommentDto): Promise<Written<CommentRow>> {
    return this.write(caller, access, async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const target = await this.target(scope, dto, write.em);
      const comment = Object.assign(new Comment(), {
        id: newId(),
        spaceId: scope.spaceId,
        changeRequestId: scope.changeRequestId,
        revisionId: scope.revisionId,
        ...target,
        markdown: dto.body.markdown,
        postedBy: caller.id,
        postedAt: new Date(),
        editedAt: null,
        status: 'open',
        resolvedAt: null,
        resolvedBy: null,
        reviewId: null,
      } satisfies Comment);
      await this.comments.insertComment(comment, write.em);
      await this.countOpen(write, scope, +1);
      return (await this.details([comment], scope, write.em))[0];
    });
  }

  update(caller: User, access: SpaceAccess, changeRequest: string | null, commentId: string, dto: UpdateCommentDto): Promise<Written<CommentRow>> {
    return this.write(caller, access, async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const comment = await this.requireComment(scope, commentId, write.em);
      const who = callerOf(caller, write);
      const changes: Partial<Comment> = {};
      const now = new Date();
      if (dto.body !== undefined) {
        if (!canEdit(who, comment.postedBy)) throw commentError('comment.edit_forbidden', 'Only the author of a comment can change its body');
        Object.assign(changes, { markdown: dto.body.markdown, editedAt: now });
      }
      if (dto.resolved !== undefined) {
        if (!canResolve(who, comment.postedBy))
          throw commentError('comment.resolve_forbidden', 'Resolving a comment needs the review permission, or being its author');
        if (dto.resolved && comment.status === 'open') {
          Object.assign(changes, { status: 'resolved', resolvedAt: now, resolvedBy: caller.id });
          await this.countOpen(write, scope, -1);
        } else if (!dto.resolved && comment.status === 'resolved') {
          Object.assign(changes, { status: 'open', resolvedAt: null, resolvedBy: null });
          await this.countOpen(write, scope, +1);
        }
      }
      if (Object.keys(changes).length > 0) await this.comments.updateComment(comment.id, changes, write.em);
      await this.react({ kind: 'comment', id: comment.id }, caller, dto, now, write.em);
      return (await this.details([Object.assign(comment, changes)], scope, write.em))[0];
    });
  }

  /** False when there was no such comment (answered 204, as the public description does). */
  delete(caller: User, access: SpaceAccess, changeRequest: string | null, commentId: string): Promise<boolean> {
    return this.unitOfWork.run(access.space.id, caller, 'comment', async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const comment = await this.comments.findComment(scope, commentId, write.em);
      if (!comment) return false;
      if (!canDelete(callerOf(caller, write), comment.postedBy))
        throw commentError('comment.delete_forbidden', 'Only the author of a comment or a space admin can delete it');
      if (comment.status === 'open') await this.countOpen(write, scope, -1);
      await this.comments.deleteComment(comment.id, write.em);
      return true;
    });
  }

  async listReplies(access: SpaceAccess, changeRequest: string | null, commentId: string, query: ListQueryDto): Promise<Page<ReplyRow>> {
    const scope = await this.scopeOf(access.space, changeRequest);
    const comment = await this.requireComment(scope, commentId);
    const page = await this.comments.listReplies(comment.id, query);
    return { ...page, items: await this.replyDetails(comment, page.items) };
  }

  async getReply(access: SpaceAccess, changeRequest: string | null, commentId: string, replyId: string): Promise<ReplyRow> {
    const scope = await this.scopeOf(access.space, changeRequest);
    const comment = await this.requireComment(scope, commentId);
    const [row] = await this.replyDetails(comment, [await this.requireReply(comment, replyId)]);
    return row;
  }

  postReply(caller: User, access: SpaceAccess, changeRequest: string | null, commentId: string, markdown: string): Promise<Written<ReplyRow>> {
    return this.write(caller, access, async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const comment = await this.requireComment(scope, commentId, write.em);
      const reply = Object.assign(new CommentReply(), {
        id: newId(),
        commentId: comment.id,
        markdown,
        postedBy: caller.id,
        postedAt: new Date(),
        editedAt: null,
      } satisfies CommentReply);
      await this.comments.insertReply(reply, write.em);
      return (await this.replyDetails(comment, [reply], write.em))[0];
    });
  }

  updateReply(
    caller: User,
    access: SpaceAccess,
    changeRequest: string | null,
    commentId: string,
    replyId: string,
    dto: UpdateCommentReplyDto,
  ): Promise<Written<ReplyRow>> {
    return this.write(caller, access, async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const comment = await this.requireComment(scope, commentId, write.em);
      const reply = await this.requireReply(comment, replyId, write.em);
      const now = new Date();
      if (dto.body !== undefined) {
        if (!canEdit(callerOf(caller, write), reply.postedBy)) throw commentError('comment.edit_forbidden', 'Only the author of a reply can change its body');
        Object.assign(reply, { markdown: dto.body.markdown, editedAt: now });
        await this.comments.updateReply(reply.id, { markdown: reply.markdown, editedAt: now }, write.em);
      }
      await this.react({ kind: 'reply', id: reply.id }, caller, dto, now, write.em);
      return (await this.replyDetails(comment, [reply], write.em))[0];
    });
  }

  /** False when there was no such reply (answered 204). */
  deleteReply(caller: User, access: SpaceAccess, changeRequest: string | null, commentId: string, replyId: string): Promise<boolean> {
    return this.unitOfWork.run(access.space.id, caller, 'comment', async (write) => {
      const scope = await this.scopeOf(write.space, changeRequest, write.em);
      const comment = await this.requireComment(scope, commentId, write.em);
      const reply = await this.comments.findReply(comment.id, replyId, write.em);
      if (!reply) return false;
      if (!canDelete(callerOf(caller, write), reply.postedBy))
        throw commentError('comment.delete_forbidden', 'Only the author of a reply or a space admin can delete it');
      await this.comments.deleteReply(reply.id, write.em);
      return true;
    });
  }

  async commenters(access: SpaceAccess, changeRequest: string | null, query: ListQueryDto): Promise<Page<MemberRow>> {
    const scope = await this.scopeOf(access.space, changeRequest);
    return this.comments.listCommenters(access.space.organizationId, scope, query);
  }

  /**
   * A review's comment (the `REVIEW_COMMENTS` port): a comment of the change request on its head,
   * posted in the review's write, counted among its open comments like any other.
   */
  async postForReview(write: SpaceWrite, changeRequest: ChangeRequest, reviewId: string, markdown: string, caller: User): Promise<void> {
    const comment = Object.assign(new Comment(), {
      id: newId(),
      spaceId: changeRequest.spaceId,
      changeRequestId: changeRequest.id,
      revisionId: changeRequest.revision,
      pageId: null,
      pageDocumentId: null,
      nodeId: null,
      nodePreview: null,
      markdown,
      postedBy: caller.id,
      postedAt: new Date(),
      editedAt: null,
      status: 'open',
      resolvedAt: null,
      resolvedBy: null,
      reviewId,
    } satisfies Comment);
    await this.comments.insertComment(comment, write.em);
    await this.countOpen(write, { spaceId: changeRequest.spaceId, changeRequestId: changeRequest.id, revisionId: changeRequest.revision }, +1);
  }

  /** The comments of these reviews (deleted ones are simply absent), by review id. */
  async ofReviews(changeRequest: ChangeRequest, reviewIds: string[]): Promise<Map<string, CommentRow>> {
    if (reviewIds.length === 0) return new Map();
    const comments = await this.comments.reviewComments(changeRequest.id, reviewIds);
    const rows = await this.details(comments, { spaceId: changeRequest.spaceId, changeRequestId: changeRequest.id, revisionId: changeRequest.revision });
    return new Map(rows.map((row) => [row.comment.reviewId as string, row]));
  }

  private async write<T>(caller: User, access: SpaceAccess, work: (write: SpaceWrite) => Promise<T>): Promise<Written<T>> {
    return this.unitOfWork.run(access.space.id, caller, 'comment', async (write) => ({ row: await work(write), access: write.access }));
  }

  /** The space itself, or its change request `ref` (id or number): 404 when the space has no such change request. */
  private async scopeOf(space: Space, ref: string | null, em?: EntityManager): Promise<CommentScope> {
    if (ref === null) return { spaceId: space.id, changeRequestId: null, revisionId: space.revisionId };
    const changeRequest = await this.changeRequests.resolve(space.id, ref, em);
    return { spaceId: space.id, changeRequestId: changeRequest.id, revisionId: changeRequest.revision };
  }

  /** `page` and `node` must exist in the scope's revision (400 otherwise); a node needs its page. */
  private async target(
    scope: CommentScope,
    dto: PostCommentDto,
    em: EntityManager,
  ): Promise<Pick<Comment, 'pageId' | 'pageDocumentId' | 'nodeId' | 'nodePreview'>> {
    if (dto.page === undefined) {
      if (dto.node !== undefined) throw commentError('comment.unknown_node', 'node: a node is a part of a page, so page is required with it');
      return { pageId: null, pageDocumentId: null, nodeId: null, nodePreview: null };
    }
    const found = await this.comments.findPage(scope.revisionId, dto.page, em);
    if (!found) throw commentError('comment.unknown_page', `page: page ${dto.page} is not in revision ${scope.revisionId}`);
    let node: { id: string; preview: string } | undefined;
    if (dto.node !== undefined) {
      node = pageNodes(found.markdown).find((candidate) => candidate.id === dto.node);
      if (!node) throw commentError('comment.unknown_node', `node: node ${dto.node} is not in page ${dto.page} of revision ${scope.revisionId}`);
    }
    return { pageId: found.page.pageId, pageDocumentId: found.page.documentId, nodeId: node?.id ?? null, nodePreview: node?.preview ?? null };
  }

  private async countOpen(write: SpaceWrite, scope: CommentScope, delta: number): Promise<void> {
    if (scope.changeRequestId) await this.comments.countChangeRequestComments(scope.changeRequestId, delta, write.em);
    else await write.count({ openComments: delta });
  }

  /** Reactions are the caller's own: added ones counted once, then removed ones taken away. */
  private async react(subject: ReactionSubject, caller: User, dto: UpdateCommentReplyDto, at: Date, em: EntityManager): Promise<void> {
    await this.comments.addReactions(subject, caller.id, dto.addedReactions ?? [], at, em);
    await this.comments.removeReactions(subject, caller.id, dto.removedReactions ?? [], em);
  }

  private async requireComment(scope: CommentScope, commentId: string, em?: EntityManager): Promise<Comment> {
    const comment = await this.comments.findComment(scope, commentId, em);
    if (!comment) throw commentError('comment.not_found', `Comment ${commentId} not found`);
    return comment;
  }

  private async requireReply(comment: Comment, replyId: string, em?: EntityManager): Promise<CommentReply> {
    const reply = await this.comments.findReply(comment.id, replyId, em);
    if (!reply) throw commentError('comment.reply_not_found', `Reply ${replyId} not found on comment ${comment.id}`);
    return reply;
  }

  /** Authors, resolvers, repliers, reactions and target pages of a page of comments, in a fixed number of queries. */
  private async details(comments: Comment[], scope: CommentScope, em?: EntityManager): Promise<CommentRow[]> {
    const ids = comments.map((comment) => comment.id);
    // One after the other: inside a write they share the transaction's connection.
    const stats = await this.comments.replyStats(ids, em);
    const reactions = await this.comments.reactions('comment', ids, em);
    const pages = await this.comments.targetPages(comments, scope.revisionId, em);
    const users = await this.comments.users(
      [
        ...comments.flatMap((comment) => [comment.postedBy, ...(comment.resolvedBy ? [comment.resolvedBy] : [])]),
        ...stats.map((stat) => stat.userId),
        ...[...reactions.values()].flat().map((reaction) => reaction.userId),
      ],
      em,
    );
    const user = (id: string) => users.get(id) as User;
    return comments.map((comment) => {
      const repliers = stats.filter((stat) => stat.commentId === comment.id);
      const target = pages.get(comment.id);
      return {
        comment,
        postedBy: user(comment.postedBy),
        resolvedBy: comment.resolvedBy ? user(comment.resolvedBy) : null,
        replies: repliers.reduce((sum, stat) => sum + stat.count, 0),
        repliers: repliers.map((stat) => ({ user: user(stat.userId), count: stat.count, updatedAt: stat.updatedAt })),
        reactions: groupReactions((reactions.get(comment.id) ?? []).map((reaction) => ({ ...reaction, user: user(reaction.userId) }))),
        page: target ? { page: target.page, outdated: !target.current || target.page.documentId !== comment.pageDocumentId } : null,
      };
    });
  }

  private async replyDetails(comment: Comment, replies: CommentReply[], em?: EntityManager): Promise<ReplyRow[]> {
    const reactions = await this.comments.reactions(
      'reply',
      replies.map((reply) => reply.id),
      em,
    );
    const users = await this.comments.users(
      [...replies.map((reply) => reply.postedBy), ...[...reactions.values()].flat().map((reaction) => reaction.userId)],
      em,
    );
    const user = (id: string) => users.get(id) as User;
    return replies.map((reply) => ({
      reply,
      comment,
      postedBy: user(reply.postedBy),
      reactions: groupReactions((reactions.get(reply.id) ?? []).map((reaction) => ({ ...reaction, user: user(reaction.userId) }))),
    }));
  }
}

function callerOf(caller: User, write: SpaceWrite): CommentCaller {
  return { userId: caller.id, space: write.access.permissions };
}
