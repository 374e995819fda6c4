import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A share link of a `share-link` site: its secret `key` opens the published site. */
@Entity('site_share_links')
export class SiteShareLink {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  siteId: string;

  @Column('text')
  name: string;

  @Column('text')
  key: string;

  @Column('boolean', { default: true })
  active: boolean;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
