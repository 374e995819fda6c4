import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One page of a space's active revision, as the search index holds it. Rebuilt when the active revision changes. */
@Entity('search_pages')
export class SearchPage {
  @PrimaryColumn('text')
  spaceId: string;

  @PrimaryColumn('text')
  pageId: string;

  @Column('text')
  revisionId: string;

  @Column('text', { nullable: true })
  documentId: string | null;

  @Column('text')
  title: string;

  @Column('text')
  path: string;

  @Column('text', { default: '' })
  description: string;

  /** Titles of the page's ancestors, root first. */
  @Column('text', { array: true, default: () => "'{}'" })
  ancestors: string[];

  /** Title (A) and description (B) alone: searched first, with its own index. */
  @Column('tsvector', { select: false, default: () => "''" })
  titleTsv: string;

  /** Title (A), description and headings (B), body (C). */
  @Column('tsvector', { select: false })
  tsv: string;
}
