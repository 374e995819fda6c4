import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, SelectQueryBuilder } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { ContentDocument } from '../content/document.entity';
import { RevisionPage } from '../content/revision-page.entity';
import { MembersRepository } from '../members/members.repository';
import type { MemberRow } from '../members/member.read-model';
import { User } from '../users/user.entity';
import { Comment } from './comment.entity';
import { CommentReaction, CommentReplyReaction } from './comment-reaction.entity';
import { CommentReply } from './comment-reply.entity';
import type { CommentScope } from './comment.read-model';
import type { ListCommentsQueryDto } from './dto/comment-query.dto';
import type { ReactionRecord } from './reactions';

/** Reactions live in two tables with the same shape; `subject` picks one. */
export type ReactionSubject = { kind: 'comment'; id: string } | { kind: 'reply'; id: string };

const REACTION_TABLES = {
  comment: { entity: CommentReaction, table: 'comment_reactions', column: 'comment_id' },
  reply: { entity: CommentReplyReaction, table: 'comment_reply_reactions', column: 'reply_id' },
} as const;

/** Every query of comments, replies and reactions; writes take the unit of work's EntityManager. */
@Injectable()
export class CommentsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly members: MembersRepository,
  ) {}

  /** Moves a change request's open-comment counter, in the comment write's transaction. */
  async countChangeRequestComments(changeRequestId: string, delta: number, manager: EntityManager): Promise<void> {
    await manager.query('UPDATE change_requests SET open_comments = open_comments + $2 WHERE id = $1', [changeRequestId, delta]);
  }

  /** A page of a revision with its body's markdown (empty for an empty page). */
  async findPage(revisionId: string, pageId: string, manager: EntityManager): Promise<{ page: RevisionPage; markdown: string } | null> {
    const page = await manager.findOneBy(RevisionPage, { revisionId, pageId });
    if (!page) return null;
    const document = page.documentId ? await manager.findOne(ContentDocument, { where: { id: page.documentId }, select: { id: true, markdown: true } }) : null;
    return { page, markdown: document?.markdown ?? '' };
  }

  /**
   * The targeted pages of `comments` as the scope's current revision has them; a page gone from it
   * is read from the revision the comment was posted on. Keyed by comment id.
   */
  async targetPages(
    comments: Comment[],
    currentRevisionId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, { page: RevisionPage; current: boolean }>> {
    const targeted = comments.filter((comment) => comment.pageId);
    const found = new Map<string, { page: RevisionPage; current: boolean }>();
    if (targeted.length === 0) return found;
    const current = await manager.findBy(RevisionPage, {
      revisionId: currentRevisionId,
      pageId: In([...new Set(targeted.map((comment) => comment.pageId as string))]),
    });
    const currentById = new Map(current.map((page) => [page.pageId, page]));
    const gone = targeted.filter((comment) => !currentById.has(comment.pageId as string));
    const old = gone.length
      ? await manager.find(RevisionPage, { where: gone.map((comment) => ({ revisionId: comment.revisionId, pageId: comment.pageId as string })) })
      : [];
    const oldByKey = new Map(old.map((page) => [`${page.revisionId}/${page.pageId}`, page]));
    for (const comment of targeted) {
      const page = currentById.get(comment.pageId as string);
      if (page) found.set(comment.id, { page, current: true });
      else {
        const before = oldByKey.get(`${comment.revisionId}/${comment.pageId}`);
        if (before) found.set(comment.id, { page: before, current: false });
      }
    }
    return found;
  }

  /** The comments posted with these reviews of the change request. */
  reviewComments(changeRequestId: string, reviewIds: string[]): Promise<Comment[]> {
    return this.dataSource.manager
      .createQueryBuilder(Comment, 'c')
      .where('c.change_request_id = :changeRequestId AND c.review_id = ANY(:reviewIds)', { changeRequestId, reviewIds })
      .getMany();
  }

  async insertComment(comment: Comment, manager: EntityManager): Promise<void> {
    await manager.insert(Comment, comment);
  }

  async updateComment(id: string, changes: Partial<Comment>, manager: EntityManager): Promise<void> {
    await manager.update(Comment, { id }, changes);
  }

  /** Deletes the comment; its replies and reactions go with it (foreign keys cascade). */
  async deleteComment(id: string, manager: EntityManager): Promise<void> {
    await manager.delete(Comment, { id });
  }

  findComment(scope: Pick<CommentScope, 'spaceId' | 'changeRequestId'>, id: string, manager: EntityManager = this.dataSource.manager): Promise<Comment | null> {
    return this.scoped(manager.createQueryBuilder(Comment, 'c'), scope).andWhere('c.id = :id', { id }).getOne();
  }

  listComments(scope: CommentScope, query: ListCommentsQueryDto): Promise<Page<Comment>> {
    const qb = this.scoped(this.dataSource.manager.createQueryBuilder(Comment, 'c'), scope);
    if (query.status !== 'all') qb.andWhere('c.status = :status', { status: query.status });
    if (query.targetPage) qb.andWhere('c.page_id = :targetPage', { targetPage: query.targetPage });
    if (query.authors) qb.andWhere('c.posted_by IN (:...authors)', { authors: query.authors.length ? query.authors : [''] });
    return paginate<Comment>(qb, query, {
      list: `comments:${query.order}`,
      columns: ['c.posted_at', 'c.id'],
      direction: query.order === 'asc' ? 'ASC' : 'DESC',
      keyOf: (comment) => [comment.postedAt, comment.id],
    });
  }

  /** Replies of each comment: how many, and per author how many and the latest posting time. */
  async replyStats(
    commentIds: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ commentId: string; userId: string; count: number; updatedAt: Date }[]> {
    if (commentIds.length === 0) return [];
    const rows: { comment_id: string; posted_by: string; count: number; updated_at: Date }[] = await manager.query(
      `SELECT comment_id, posted_by, count(*)::int AS count, max(posted_at) AS updated_at
         FROM comment_replies WHERE comment_id = ANY($1) GROUP BY comment_id, posted_by ORDER BY max(posted_at), posted_by`,
      [commentIds],
    );
    return rows.map((row) => ({ commentId: row.comment_id, userId: row.posted_by, count: row.count, updatedAt: new Date(row.updated_at) }));
  }

  async insertReply(reply: CommentReply, manager: EntityManager): Promise<void> {
    await manager.insert(CommentReply, reply);
  }

  async updateReply(id: string, changes: Partial<CommentReply>, manager: EntityManager): Promise<void> {
    await manager.update(CommentReply, { id }, changes);
  }

  async deleteReply(id: string, manager: EntityManager): Promise<void> {
    await manager.delete(CommentReply, { id });
  }

  findReply(commentId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<CommentReply | null> {
    return manager.findOneBy(CommentReply, { commentId, id });
  }

  /** A comment's replies in conversation order, oldest first. */
  listReplies(commentId: string, query: ListQueryDto): Promise<Page<CommentReply>> {
    const qb = this.dataSource.manager.createQueryBuilder(CommentReply, 'r').where('r.comment_id = :commentId', { commentId });
    return paginate<CommentReply>(qb, query, {
      list: 'comment-replies',
      columns: ['r.posted_at', 'r.id'],
      direction: 'ASC',
      keyOf: (reply) => [reply.postedAt, reply.id],
    });
  }

  /** Adds the caller's reactions; one they already have stays as it was (counted once). */
  async addReactions(subject: ReactionSubject, userId: string, emojis: string[], at: Date, manager: EntityManager): Promise<void> {
    if (emojis.length === 0) return;
    const { table, column } = REACTION_TABLES[subject.kind];
    await manager.query(
      `INSERT INTO ${table} (${column}, emoji, user_id, reacted_at) SELECT $1, emoji, $2, $3 FROM unnest($4::text[]) AS emoji
       ON CONFLICT DO NOTHING`,
      [subject.id, userId, at, [...new Set(emojis)]],
    );
  }

  /** Removes the caller's own reactions (never someone else's). */
  async removeReactions(subject: ReactionSubject, userId: string, emojis: string[], manager: EntityManager): Promise<void> {
    if (emojis.length === 0) return;
    const { table, column } = REACTION_TABLES[subject.kind];
    await manager.query(`DELETE FROM ${table} WHERE ${column} = $1 AND user_id = $2 AND emoji = ANY($3)`, [subject.id, userId, emojis]);
  }

  /** The reactions on each of `ids` (all comments, or all replies), keyed by subject id. */
  async reactions(
    kind: ReactionSubject['kind'],
    ids: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, Omit<ReactionRecord<never>, 'user'>[]>> {
    const byId = new Map<string, Omit<ReactionRecord<never>, 'user'>[]>();
    if (ids.length === 0) return byId;
    const { table, column } = REACTION_TABLES[kind];
    const rows: { subject: string; emoji: string; user_id: string; reacted_at: Date }[] = await manager.query(
      `SELECT ${column} AS subject, emoji, user_id, reacted_at FROM ${table} WHERE ${column} = ANY($1) ORDER BY reacted_at, user_id`,
      [ids],
    );
    for (const row of rows) {
      const list = byId.get(row.subject) ?? [];
      list.push({ emoji: row.emoji, userId: row.user_id, reactedAt: new Date(row.reacted_at) });
      byId.set(row.subject, list);
    }
    return byId;
  }

  async users(ids: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, User>> {
    const unique = [...new Set(ids)];
    const users = unique.length ? await manager.findBy(User, { id: In(unique) }) : [];
    return new Map(users.map((user) => [user.id, user]));
  }

  /**
   * The organization's members who posted a comment or a reply in the scope, as the members module
   * reads members (its query and row shape), ordered by user id.
   */
  listCommenters(organizationId: string, scope: Pick<CommentScope, 'spaceId' | 'changeRequestId'>, query: ListQueryDto): Promise<Page<MemberRow>> {
    const where = scope.changeRequestId ? 'cc.change_request_id = :commentChangeRequest' : 'cc.space_id = :commentSpace AND cc.change_request_id IS NULL';
    const qb = this.members.membersQuery(organizationId).andWhere(
      `m.user_id IN (SELECT cc.posted_by FROM comments cc WHERE ${where}
                     UNION SELECT cr.posted_by FROM comment_replies cr JOIN comments cc ON cc.id = cr.comment_id WHERE ${where})`,
      scope.changeRequestId ? { commentChangeRequest: scope.changeRequestId } : { commentSpace: scope.spaceId },
    );
    return paginate<MemberRow>(qb, query, {
      list: 'commenters',
      columns: ['m.user_id'],
      direction: 'ASC',
      keyOf: (row) => [row.user.id],
      fetch: (rows) => this.members.readMembers(rows),
    });
  }

  private scoped(qb: SelectQueryBuilder<Comment>, scope: Pick<CommentScope, 'spaceId' | 'changeRequestId'>): SelectQueryBuilder<Comment> {
    qb.where('c.space_id = :spaceId', { spaceId: scope.spaceId });
    return scope.changeRequestId
      ? qb.andWhere('c.change_request_id = :changeRequestId', { changeRequestId: scope.changeRequestId })
      : qb.andWhere('c.change_request_id IS NULL');
  }
}
