import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A block of content reused across pages; its body is a shared document like a page's.
 * Read-only: `revision_reusable_contents` is the view that resolves revision layers; writers insert into `revision_reusable_content_rows`.
 */
@Entity('revision_reusable_contents', { synchronize: false })
export class RevisionReusableContent {
  @PrimaryColumn('text')
  revisionId: string;

  @PrimaryColumn('text')
  reusableContentId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  documentId: string | null;
}
