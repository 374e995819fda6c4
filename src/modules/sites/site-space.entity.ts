import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A space shown on a site at `path` (section 2.9), at the root level or in a section. */
@Entity('site_spaces')
export class SiteSpace {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  siteId: string;

  @Column('text', { nullable: true })
  sectionId: string | null;

  @Column('text')
  spaceId: string;

  @Column('text')
  path: string;

  @Column('text', { nullable: true })
  condition: string | null;

  @Column('boolean', { default: false })
  isDefault: boolean;

  @Column('integer')
  position: number;

  /** What this site space overrides of the site's customization; null: nothing. */
  @Column('jsonb', { nullable: true })
  customization: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
