import { Column, Entity, PrimaryColumn } from 'typeorm';

export const COMMENT_STATUSES = ['open', 'resolved'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** A comment on a space, or on a change request of that space (section 2.4). */
@Entity('comments')
export class Comment {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  spaceId: string;

  /** Null for a comment on the space itself. */
  @Column('text', { nullable: true })
  changeRequestId: string | null;

  /** The revision the comment was posted on: the space's active revision, or the change request's head. */
  @Column('text')
  revisionId: string;

  @Column('text', { nullable: true })
  pageId: string | null;

  /** The page's body (document id) when the comment was posted; the page is outdated once its body differs. */
  @Column('text', { nullable: true })
  pageDocumentId: string | null;

  /** A heading anchor of the page (see docs/modules/comments.md, "Nodes"). */
  @Column('text', { nullable: true })
  nodeId: string | null;

  /** The node's text when the comment was posted. */
  @Column('text', { nullable: true })
  nodePreview: string | null;

  @Column('text')
  markdown: string;

  @Column('text')
  postedBy: string;

  @Column({ type: 'timestamptz', precision: 3 })
  postedAt: Date;

  /** Set by body edits only. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  editedAt: Date | null;

  @Column('text')
  status: CommentStatus;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolvedAt: Date | null;

  @Column('text', { nullable: true })
  resolvedBy: string | null;

  /** The change-request review this comment was posted with (`target.review`); null for other comments. */
  @Column('text', { nullable: true })
  reviewId: string | null;
}
