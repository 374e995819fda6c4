import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A block of content reused across pages; its body is a shared document like a page's. */
@Entity('revision_reusable_contents')
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
