import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A group of sections at the root level of a site (section 2.11). */
@Entity('site_section_groups')
export class SiteSectionGroup {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  siteId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  icon: string | null;

  @Column('integer')
  position: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
