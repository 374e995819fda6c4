import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The `computed` of a page (the public description's `ComputedContentSource`): its generator, inputs and props. */
export interface ComputedSource {
  type: string;
  dependencies: { [name: string]: object };
  props: { [name: string]: object | string | number | boolean | null };
}

export const PAGE_KINDS = ['document', 'group', 'link'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface PageLayout {
  width?: 'default' | 'wide';
  cover?: boolean;
  coverSize?: 'hero' | 'full' | 'background';
  title?: boolean;
  description?: boolean;
  tableOfContents?: boolean;
  outline?: boolean;
  pagination?: boolean;
}

export interface PageCover {
  ref?: { kind: 'file'; file: string } | { kind: 'url'; url: string };
  refDark?: { kind: 'file'; file: string } | { kind: 'url'; url: string };
  yPos: number;
}

/**
 * A page in one revision's tree. The page id is stable across revisions (a page keeps its id when
 * its body or place changes), so change requests can match pages when they merge; the row itself
 * belongs to one revision and is never updated. Read-only: `revision_pages` is the view that resolves
 * revision layers (a layer's own rows over its full base's); writers insert into `revision_page_rows`.
 */
@Entity('revision_pages', { synchronize: false })
export class RevisionPage {
  @PrimaryColumn('text')
  revisionId: string;

  @PrimaryColumn('text')
  pageId: string;

  @Column('text', { nullable: true })
  parentId: string | null;

  @Column('integer')
  position: number;

  @Column('text')
  kind: PageKind;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  emoji: string | null;

  @Column('text', { nullable: true })
  icon: string | null;

  /** Null for link pages, which have no path of their own. */
  @Column('text', { nullable: true })
  slug: string | null;

  /** Slugs from the root, joined with `/`; derived from the tree when the revision is written. */
  @Column('text', { nullable: true })
  path: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb', { nullable: true })
  layout: PageLayout | null;

  @Column('jsonb', { nullable: true })
  cover: PageCover | null;

  @Column('boolean', { default: false })
  hidden: boolean;

  @Column('boolean', { default: false })
  noIndex: boolean;

  @Column('boolean', { default: false })
  noRobotsIndex: boolean;

  @Column('jsonb', { default: () => "'{}'" })
  variables: Record<string, string | number | boolean>;

  /** The body (a content-addressed document); null for an empty page. */
  @Column('text', { nullable: true })
  documentId: string | null;

  /** For link pages: where the entry points (a content reference). */
  @Column('jsonb', { nullable: true })
  linkTarget: Record<string, string> | null;

  /**
   * For computed pages (section 2.19): the source their document is generated from when content is
   * read with `computed=true` (`{ type: 'builtin:openapi', dependencies, props }`); null for others.
   */
  @Column('jsonb', { nullable: true, default: null })
  computed: ComputedSource | null;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
