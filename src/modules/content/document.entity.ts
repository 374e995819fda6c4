import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A page body, keyed by the SHA-256 of its markdown: stored once, shared by every page and revision using it. */
@Entity('documents')
export class ContentDocument {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  markdown: string;

  /** Headings (weight B) and body (weight C) of the whole body, for page-level search. */
  @Column('tsvector', { select: false })
  tsv: string;

  /**
   * The public `JSONDocument` of `markdown` (`markdownToDocument`), stored with the body; null for a
   * body stored before documents were, until `FillDocumentsJob` fills it. Read only by the reads
   * that answer it.
   */
  @Column('jsonb', { select: false, nullable: true })
  document: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/** A body split at its headings, for search results that point at the matching section. */
@Entity('document_sections')
export class DocumentSection {
  @PrimaryColumn('text')
  documentId: string;

  @PrimaryColumn('integer')
  position: number;

  @Column('text')
  anchor: string;

  @Column('text')
  heading: string;

  @Column('text')
  body: string;
}
