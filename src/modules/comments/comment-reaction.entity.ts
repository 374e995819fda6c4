import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One user's emoji on a comment: at most one row per (comment, emoji, user). */
@Entity('comment_reactions')
export class CommentReaction {
  @PrimaryColumn('text')
  commentId: string;

  @PrimaryColumn('text')
  emoji: string;

  @PrimaryColumn('text')
  userId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  reactedAt: Date;
}

/** One user's emoji on a reply: at most one row per (reply, emoji, user). */
@Entity('comment_reply_reactions')
export class CommentReplyReaction {
  @PrimaryColumn('text')
  replyId: string;

  @PrimaryColumn('text')
  emoji: string;

  @PrimaryColumn('text')
  userId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  reactedAt: Date;
}
