import { Column, Entity, PrimaryColumn } from 'typeorm';

export const LINK_STATUSES = ['ok', 'broken', 'in-app'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** Where a link points, as a content reference. */
export type LinkTarget =
  { kind: 'page'; page: string } | { kind: 'file'; file: string } | { kind: 'anchor'; anchor: string; page: string } | { kind: 'url'; url: string };

/**
 * One distinct link target of a revision, classified when the revision is written, with the pages that link to it.
 * Read-only: `revision_links` is the view that resolves revision layers; writers insert into `revision_link_rows`.
 */
@Entity('revision_links', { synchronize: false })
export class RevisionLink {
  @PrimaryColumn('text')
  revisionId: string;

  /** `kind:value`, unique per revision; also the list's sort key. */
  @PrimaryColumn('text')
  targetKey: string;

  @Column('text')
  status: LinkStatus;

  @Column('jsonb')
  target: LinkTarget;

  /** Ids of the pages the link appears on, in tree order. */
  @Column('text', { array: true })
  pages: string[];
}
