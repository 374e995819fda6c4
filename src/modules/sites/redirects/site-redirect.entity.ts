import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Where a redirect sends a reader, as stored (the public `SiteRedirectDestination`). */
export type SiteRedirectDestination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string }
  | { kind: 'external'; url: string };

/**
 * A redirect of a site (`site_redirects`): a source path, exact or ending in `*` (then `prefix` is
 * the source without it and `wildcard` is set), live or draft (one of each per source).
 */
@Entity('site_redirects')
export class SiteRedirect {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  siteId: string;

  @Column('text')
  source: string;

  @Column('text')
  prefix: string;

  @Column('boolean')
  wildcard: boolean;

  @Column('boolean', { default: false })
  draft: boolean;

  @Column('boolean', { default: false })
  captureWildcard: boolean;

  @Column('boolean', { default: false })
  permanent: boolean;

  @Column('jsonb')
  destination: SiteRedirectDestination;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
