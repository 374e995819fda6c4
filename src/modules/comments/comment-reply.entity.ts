import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A reply to a comment (section 2.5); deleted with its comment. */
@Entity('comment_replies')
export class CommentReply {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  commentId: string;

  @Column('text')
  markdown: string;

  @Column('text')
  postedBy: string;

  @Column({ type: 'timestamptz', precision: 3 })
  postedAt: Date;

  /** Set by body edits only. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  editedAt: Date | null;
}
